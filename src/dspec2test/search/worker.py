"""The worker: a Python process that imports the program compiled with its harness (compiled.py) and answers
the search's questions about candidates in bulk, one JSON line each way.

Candidates cross as JSON, shaped by a type descriptor per input (`descriptor`): numbers as numbers, a
character as its code point, a real as [numerator, denominator], a sequence, set, multiset or tuple as a list,
a map as a list of [key, value], a datatype value as [constructor, [fields]]. The worker makes the runtime's
values of them (`_dafny.Seq`, `_dafny.Set`, ...; datatype values through the harness's Mk functions, since
how the Python backend names classes is its own business).

Requests: `admit` (the checks before the call, then the partitions' projections, per candidate) and `run`
(the call and the checks after it). Each candidate runs under a CPU-time limit; a crash or an overrun is its
answer, never the worker's end. The harness runs the program's own code (a requires may call a compiled
function; `run` calls the member), so the process is the program's, not ours.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import IO, Any

from dspec2test.model.resolve import RType
from dspec2test.run.process import tied_to_parent
from dspec2test.run.pydriver import STRICT_BOUNDS
from dspec2test.search.objects import Calls, ClassPlan, class_key
from dspec2test.solve.literal import Data
from dspec2test.toolchain import untrusted_env

CRASHED = -1  # the candidate's evaluation threw or halted
OVERRAN = -2  # it went past its CPU-time limit

WORKER = f'''
import json, signal, sys
sys.path.insert(0, sys.argv[1])
sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
UNICODE = sys.argv[2] == "1"
import _dafny
import module_
{STRICT_BOUNDS}
class _Overrun(BaseException):
    pass
def _overrun(signum, frame):
    raise _Overrun()
signal.signal(signal.SIGPROF, _overrun)
H = module_.default__
DATA = {{}}
OBJECTS = {{}}
class _Rejected(Exception):  # a constructor's or a call's requires did not hold: no such object
    pass
def char(v):
    return _dafny.CodePoint(chr(v)) if UNICODE else chr(v)
def build(d, v):
    k = d[0]
    if k == "i" or k == "b":
        return v
    if k == "c":
        return char(v)
    if k == "r":
        return _dafny.BigRational(v[0], v[1])
    if k == "s":
        elems = [build(d[1], x) for x in v]
        if d[1][0] == "c" and not UNICODE:
            return _dafny.Seq("".join(elems), isStr=True)
        return _dafny.SeqWithoutIsStrInference(elems)
    if k == "a":
        a = _dafny.Array(None, len(v))
        a.arr = [build(d[1], x) for x in v]
        return a
    if k == "S":
        return _dafny.Set([build(d[1], x) for x in v])
    if k == "M":
        return _dafny.MultiSet([build(d[1], x) for x in v])
    if k == "m":
        return _dafny.Map({{build(d[1], kv[0]): build(d[2], kv[1]) for kv in v}})
    if k == "t":
        return tuple(build(e, x) for e, x in zip(d[1], v))
    if k == "d":
        maker, fields = DATA[d[1]][v[0]]
        return getattr(H, maker)(*[build(f, x) for f, x in zip(fields, v[1])])
    if k == "o":
        plan = OBJECTS[d[1]]
        maker, descs = plan["ctors"][v[0]]
        o = getattr(H, maker)(*[build(f, x) for f, x in zip(descs, v[1])])
        if o is None:
            raise _Rejected()
        for j, args in v[2]:
            step, descs = plan["steps"][j]
            if getattr(H, step)(o, *[build(f, x) for f, x in zip(descs, args)]) is not True:
                raise _Rejected()
        return o
    raise ValueError(k)
def made(req, cand, limit):
    """The runtime values of a candidate's inputs (objects made by their calls), or None where a call's
    requires did not hold, it crashed or it overran."""
    try:
        try:
            signal.setitimer(signal.ITIMER_PROF, limit)
            return [build(d, v) for d, v in zip(req["descs"], cand)]
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
    except (_Overrun, _Rejected, Exception, RecursionError):
        return None
def call(name, args, limit):
    try:
        try:
            signal.setitimer(signal.ITIMER_PROF, limit)
            return getattr(H, name)(*args)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
    except _Overrun:
        return {OVERRAN}
    except (Exception, RecursionError):
        return {CRASHED}
def _shape(v):
    """What a field holds, as features: a sequence's length, repeats and order, a number's sign."""
    if isinstance(v, bool):
        return [str(v)]
    if isinstance(v, int):
        return ["neg" if v < 0 else "zero" if v == 0 else "pos"]
    if isinstance(v, _dafny.Array):
        return ["cap" + str(min(len(v.arr), 3))]
    if isinstance(v, (_dafny.Seq, _dafny.Set, _dafny.MultiSet)):
        xs = list(v)
        out = ["len" + str(min(len(xs), 3))]
        try:
            if len(set(xs)) < len(xs):
                out.append("dup")
            elif len(xs) >= 2:
                out.append("distinct")
            if xs and all(isinstance(x, int) and not isinstance(x, bool) for x in xs):
                out.append("signs" + "".join(sorted(set("neg" if x < 0 else "zero" if x == 0 else "pos" for x in xs))))
                if len(xs) >= 2 and isinstance(v, _dafny.Seq):
                    asc, desc = xs == sorted(xs), xs == sorted(xs, reverse=True)
                    out.append("asc" if asc and not desc else "desc" if desc and not asc else "flat" if asc else "mixed")
        except TypeError:
            pass
        return out
    return []
def state(args):
    """The features of the objects among the inputs (what their calls left in each field): two objects
    made by different calls may hold the same, and one object a queue of two different elements."""
    out = []
    for i, a in enumerate(args):
        fields = getattr(a, "__dict__", None)
        if fields is None or isinstance(a, (_dafny.Seq, _dafny.Array)):
            continue
        for name in sorted(fields):
            out += [str(i) + "." + name + ":" + f for f in _shape(fields[name])]
        # a count against a length (a buffer's size against its capacity: full, or room left)
        sizes = dict((n, len(v.arr) if isinstance(v, _dafny.Array) else len(v)) for n, v in fields.items()
                     if isinstance(v, (_dafny.Array, _dafny.Seq)))
        for name in sorted(fields):
            v = fields[name]
            if isinstance(v, int) and not isinstance(v, bool):
                for other in sorted(sizes):
                    rel = "<" if v < sizes[other] else "=" if v == sizes[other] else ">"
                    out.append(str(i) + "." + name + ":" + rel + "|" + other + "|")
    return out
def admit(req):
    rows = []
    for cand in req["cands"]:
        args = made(req, cand, req["limit"])
        if args is None:
            rows.append(None)
            continue
        code = call(req["admit"], args, req["limit"])
        if code is True or code is False:
            code = {CRASHED}
        if code != 0:
            rows.append([code, []])
            continue
        bits = []
        for p in req["projs"]:
            b = call(p, args, req["limit"])
            bits.append(b if b is True or b is False else None)
        try:
            shown = state(args) if req.get("state") else []
        except Exception:  # what an object holds only steers the choice: never a reason to stop
            shown = []
        rows.append([0, bits, shown])
    return {{"rows": rows}}
def run(req):
    rows = []
    for cand in req["cands"]:
        args = made(req, cand, req["limit"])
        if args is None:
            rows.append(None)
            continue
        code = call(req["run"], args, req["limit"])
        rows.append(code if isinstance(code, int) and not isinstance(code, bool) else {CRASHED})
    return {{"rows": rows}}
for line in sys.stdin:
    req = json.loads(line)
    op = req["op"]
    if op == "data":
        DATA.update(req["table"])
        OBJECTS.update(req.get("objects", {{}}))
        out = {{"ok": True}}
    elif op == "admit":
        out = admit(req)
    elif op == "run":
        out = run(req)
    else:
        out = {{"error": op}}
    sys.stdout.write(json.dumps(out) + "\\n")
    sys.stdout.flush()
'''


class WorkerDied(Exception):
    """The worker ended (or its answer could not be read): the search stops, the solver goes on."""


@dataclass(frozen=True)
class Descriptors:
    """Type descriptors of a member's inputs, the datatypes they reach (constructor -> Mk, fields) and the
    classes they are objects of (constructors and steps: harness method, argument descriptors)."""

    inputs: tuple[Any, ...]
    table: dict[str, dict[str, tuple[str, list[Any]]]]
    objects: dict[str, dict[str, list[tuple[str, list[Any]]]]] = field(default_factory=dict)


def descriptors(types: Sequence[RType], makers: dict[tuple[RType, str], str],
                fields: Any, classes: dict[str, ClassPlan] | None = None) -> Descriptors:
    """`fields(dt, ctor)`: the constructor's (name, type) per formal; `classes`: how objects of each class
    are made (search/objects.py). Raises KeyError for a datatype the harness has no Mk function for, or a
    class it has no plan for, ValueError for a type the worker cannot build."""
    table: dict[str, dict[str, tuple[str, list[Any]]]] = {}
    objects: dict[str, dict[str, list[tuple[str, list[Any]]]]] = {}
    ids: dict[RType, str] = {}

    def desc(t: RType) -> Any:
        b = t.base
        k = b.kind
        if k in ("int", "bv"):
            return ["i"]
        if k == "bool":
            return ["b"]
        if k == "char":
            return ["c"]
        if k == "real":
            return ["r"]
        if k == "seq":
            return ["s", desc(b.args[0])]
        if k == "array":
            return ["a", desc(b.args[0])]
        if k == "set":
            return ["S", desc(b.args[0])]
        if k == "multiset":
            return ["M", desc(b.args[0])]
        if k == "map":
            return ["m", desc(b.args[0]), desc(b.args[1])]
        if k == "tuple":
            return ["t", [desc(a) for a in b.args]]
        if k == "data":
            if b not in ids:
                ids[b] = str(len(ids))
                decl, _ = b.datatype
                row: dict[str, tuple[str, list[Any]]] = {}
                table[ids[b]] = row
                for ctor in decl.ctors:
                    if not ctor.ghost:  # never built (the harness has no Mk function for it)
                        row[ctor.name] = (makers[(b, ctor.name)], [desc(ft) for _, ft in fields(b, ctor)])
            return ["d", ids[b]]
        if k == "class":
            key = class_key(b)
            plan = (classes or {})[key]
            if key not in objects:
                objects[key] = {"ctors": [], "steps": []}  # first, for a class whose methods take its objects
                objects[key] = {"ctors": [(m.method, [desc(a) for a in m.args]) for m in plan.ctors],
                                "steps": [(m.method, [desc(a) for a in m.args]) for m in plan.steps]}
            return ["o", key]
        raise ValueError(f"the search cannot build a value of {k}")

    inputs = tuple(desc(t) for t in types)
    return Descriptors(inputs, table, objects)


def to_json(v: Any) -> Any:
    """A plain value as the worker reads it."""
    if isinstance(v, bool) or isinstance(v, int):
        return v
    if isinstance(v, Fraction):
        return [v.numerator, v.denominator]
    if isinstance(v, Data):
        return [v.ctor, [to_json(a) for a in v.args]]
    if isinstance(v, Calls):
        return [v.ctor, [to_json(a) for a in v.args], [[j, [to_json(a) for a in args]] for j, args in v.steps]]
    if isinstance(v, frozenset):
        return [to_json(x) for x in sorted(v, key=repr)]
    if isinstance(v, tuple):
        return [to_json(x) for x in v]
    raise ValueError(f"no JSON for {v!r}")


class Worker:
    """A running worker over one compiled harness. Not thread-safe; close() it (or use `with`)."""

    def __init__(self, pydir: Path, unicode: bool = True, env: dict[str, str] | None = None):
        script = pydir.parent / "dspec2test_worker.py"
        if not script.exists():
            script.write_text(WORKER)
        python = shutil.which("python3") or sys.executable
        self.proc = subprocess.Popen(tied_to_parent([python, "-u", str(script), str(pydir), "1" if unicode else "0"]),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     # the user's code runs here: without the workflow's secrets, as the tests do
                                     env=env if env is not None else untrusted_env(os.environ),
                                     cwd=str(pydir.parent), start_new_session=True)
        self._tables: set[tuple[str, str]] = set()

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def _ask(self, req: dict[str, Any]) -> dict[str, Any]:
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None
        try:
            _send(stdin, req)
            line = stdout.readline()
        except (BrokenPipeError, OSError) as exc:
            raise WorkerDied(str(exc)) from exc
        if not line:
            raise WorkerDied("the worker ended")
        try:
            out = json.loads(line)
        except json.JSONDecodeError as exc:
            raise WorkerDied(f"unreadable answer: {line[:80]!r}") from exc
        if not isinstance(out, dict) or "error" in out:
            raise WorkerDied(f"refused: {out!r}")
        return out

    def data(self, d: Descriptors) -> None:
        fresh = {k: v for k, v in d.table.items() if ("d", k) not in self._tables}
        objects = {k: v for k, v in d.objects.items() if ("o", k) not in self._tables}
        if fresh or objects:
            self._ask({"op": "data", "table": fresh, "objects": objects})
            self._tables |= {("d", k) for k in fresh} | {("o", k) for k in objects}

    def admit(self, admit: str, projs: Sequence[str], d: Descriptors, cands: Sequence[Sequence[Any]],
              limit_s: float, state: bool = False) -> list[tuple[int, list[bool | None], list[str]] | None]:
        """Per candidate: (0, the projections' truth, with `state` the features of what its objects hold)
        when the checks before the call hold, else (the number of the first that failed, or CRASHED/OVERRAN,
        [], []); None where the worker could not build it."""
        self.data(d)
        rows = self._ask({"op": "admit", "admit": admit, "projs": list(projs), "descs": list(d.inputs),
                          "cands": [[to_json(x) for x in c] for c in cands], "limit": limit_s,
                          "state": state})["rows"]
        return [None if r is None else (int(r[0]), list(r[1]), [str(f) for f in r[2]] if len(r) > 2 else [])
                for r in rows]

    def run(self, run: str, d: Descriptors, cands: Sequence[Sequence[Any]], limit_s: float) -> list[int | None]:
        """Per candidate: 0 when every check after the call held, the number of the first that failed, or
        CRASHED/OVERRAN."""
        self.data(d)
        rows = self._ask({"op": "run", "run": run, "descs": list(d.inputs),
                          "cands": [[to_json(x) for x in c] for c in cands], "limit": limit_s})["rows"]
        return [None if r is None else int(r) for r in rows]


def _send(stream: IO[bytes], req: dict[str, Any]) -> None:
    stream.write((json.dumps(req) + "\n").encode())
    stream.flush()
