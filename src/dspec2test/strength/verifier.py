"""Which mutants Dafny still verifies: all copies of one member in one `dafny verify`, on every core.

The copies file (copies.py) is verified with `--filter-symbol` on the copies' tag, so Dafny checks the
copies alone and spreads them over `--cores`. An error inside a copy's lines kills that copy's mutant;
a copy that does not resolve is incompetent, taken out, and the others are verified again (Dafny stops
at resolution errors). The unchanged copy (the control) must verify: if it does not, the member itself
does not verify here and nothing about its mutants can be said.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from dspec2test.dafny import ast
from dspec2test.errors import Diagnostic
from dspec2test.run.diagnostics import build_errors
from dspec2test.run.process import run_limited
from dspec2test.strength.copies import CONTROL, TAG, Copies, build
from dspec2test.strength.mutate import Mutant
from dspec2test.toolchain import Toolchain

MAX_ROUNDS = 4  # resolution rounds: Dafny reports the errors of one phase at a time
VERIFIED, VERIFICATION_ERRORS = 0, 4  # dafny verify's exit codes (measured with Dafny 4.11); 2: resolution


@dataclass(frozen=True)
class VerifySettings:
    cores: int = 2
    time_limit_s: int = 20  # --verification-time-limit: a mutant that makes a proof hang counts as killed


@dataclass(frozen=True)
class MutantVerdicts:
    """What Dafny said of the mutants of one member."""

    survived: tuple[int, ...] = ()  # ids of the mutants that verify
    killed: dict[int, str] = field(default_factory=dict)  # id -> Dafny's first error in the copy
    incompetent: dict[int, str] = field(default_factory=dict)  # id -> why it does not resolve
    unverified: tuple[int, ...] = ()  # ids without a verdict: the budget ran out first
    error: str = ""  # why no verdict: the member itself does not verify, the budget ran out, ...
    rounds: int = 0
    wall_s: float = 0.0


def check(source: ast.Program, member: ast.Method | ast.Function, chosen: list[Mutant], workdir: Path,
          tools: Toolchain, deadline: float, settings: VerifySettings = VerifySettings()) -> MutantVerdicts:
    """Verify the copies of `member` with the mutants `chosen` (in `source`, the parsed file that declares
    it), within the monotonic `deadline`."""
    start = time.monotonic()
    left = {m.id: m for m in chosen}
    incompetent: dict[int, str] = {}
    path = workdir / Path(source.path).name
    for rounds in range(1, MAX_ROUNDS + 1):
        copies = build(source, member, list(left.values()))
        path.write_text(copies.text, encoding="utf-8")
        remaining = deadline - time.monotonic()
        if remaining <= 1:
            return MutantVerdicts(incompetent=incompetent, error="out of time before verification", rounds=rounds - 1,
                           wall_s=time.monotonic() - start)
        argv = [tools.dafny or "dafny", "verify", "--allow-warnings", *tools.solver_args(), f"--filter-symbol={TAG}",
                "--cores", str(settings.cores), "--verification-time-limit", str(settings.time_limit_s),
                "--progress", "Symbol", path.name]
        done = run_limited(argv, workdir, tools.dafny_env(), remaining)
        wall = time.monotonic() - start
        errors = [d for d in build_errors(done.stdout + "\n" + done.stderr) if Path(d.file).name == path.name]
        owned = _by_copy(copies, errors)
        if done.timed_out:
            return _partial(copies, owned, done.stdout, left, incompetent, rounds, wall)
        if done.returncode in (VERIFIED, VERIFICATION_ERRORS):
            if CONTROL in owned:
                return MutantVerdicts(incompetent=incompetent, error=f"{member.name} itself does not verify here: "
                                                              f"{owned[CONTROL]}", rounds=rounds, wall_s=wall)
            killed = {k: why for k, why in owned.items() if k in left}
            return MutantVerdicts(tuple(k for k in left if k not in killed), killed, incompetent, rounds=rounds, wall_s=wall)
        stray = [d for d in errors if copies.owner(d.line) is None]
        if stray or not owned or CONTROL in owned:
            first = (stray or errors)[0].render() if (stray or errors) else _tail(done.stdout + done.stderr)
            return MutantVerdicts(incompetent=incompetent, error=f"the program with the mutants does not resolve: {first}",
                           rounds=rounds, wall_s=wall)
        for k, why in owned.items():
            incompetent[k] = why
            left.pop(k, None)
        if not left:
            return MutantVerdicts(incompetent=incompetent, rounds=rounds, wall_s=wall)
    return MutantVerdicts(incompetent=incompetent, error=f"still resolution errors after {MAX_ROUNDS} rounds",
                   rounds=MAX_ROUNDS, wall_s=time.monotonic() - start)


def _partial(copies: Copies, owned: dict[int, str], output: str, left: dict[int, Mutant],
             incompetent: dict[int, str], rounds: int, wall: float) -> MutantVerdicts:
    """What a verification stopped at the budget said: Dafny verifies the copies in order and says which
    one it waits for (`--progress Symbol`), so those before it are done; an error kills a copy wherever."""
    waiting = [line.rsplit("Waiting for ", 1)[1].split()[0].rstrip(".")
               for line in output.splitlines() if "Waiting for " in line]
    order = [p.name for p in copies.placed]
    upto = order.index(waiting[-1]) if waiting and waiting[-1] in order else 0
    done = {p.key for p in copies.placed[:upto]}
    if CONTROL in owned:
        return MutantVerdicts(incompetent=incompetent, error=f"the member itself does not verify here: {owned[CONTROL]}",
                       rounds=rounds, wall_s=wall)
    if CONTROL not in done:
        return MutantVerdicts(incompetent=incompetent, error=f"verification did not finish within the budget "
                                                      f"({len(left)} mutants)", rounds=rounds, wall_s=wall)
    killed = {k: why for k, why in owned.items() if k in left}
    survived = tuple(k for k in left if k in done and k not in killed)
    unverified = tuple(k for k in left if k not in done and k not in killed)
    return MutantVerdicts(survived, killed, incompetent, unverified, rounds=rounds, wall_s=wall)


def _by_copy(copies: Copies, errors: list[Diagnostic]) -> dict[int, str]:
    """The first error inside each copy, by the copy's mutant id."""
    out: dict[int, str] = {}
    for d in errors:
        owner = copies.owner(d.line)
        if owner is not None and owner.key not in out:
            out[owner.key] = d.message
    return out


def _tail(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-2:]) or "no message"
