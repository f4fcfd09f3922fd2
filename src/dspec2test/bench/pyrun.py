"""Run the {:test} methods of a Dafny program on the Python target, one test at a time under a watch.

`dafny test` buffers its child's output, so after a hang or a crash nothing tells which test was
running, and a resume means compiling again. Instead we translate once (`dafny translate py
--include-test-runner`), read the test list out of the runner Dafny generated (Python `ast`, not
regexes), and drive the tests from our own small Python driver that prints a marker before and after
each test. An uncaught runtime error fails that test only (Dafny's runner would stop the run there: the
same verdict for that test, and the rest still run); a test that exceeds the per-test limit is killed,
counted as timeout, and the driver restarts after it without recompiling.

A run may also give each test a CPU-time limit (the kill phase does: a mutant that loops is caught in
about that much CPU time, not after a wall-clock limit chosen for a loaded machine). The driver checks
it itself with a profiling timer, so the looping test ends with an exception and the next test runs in
the same process; CPU time, unlike wall time, does not grow when other processes load the machine. The
wall-clock watch stays as the backstop for what the timer cannot interrupt (one huge integer operation).

With stop_on_kill, once a test of a program version fails or times out, that version's remaining tests
are skipped (not reported): a benchmark only needs to know that the version is killed.
"""

from __future__ import annotations

import ast
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

from dspec2test.bench.results import RunResult, TestResult, subject_of
from dspec2test.records import Status
from dspec2test.run.process import kill_group, run_limited
from dspec2test.toolchain import Toolchain

MARK = "\x1fdspec2test-bench"
SKIPPED = "skipped"  # internal: a test not run because its version was already killed
RUNNER_FUNCTION = "Test____Main____"

# Python lists wrap negative indices and clamp slices; Dafny's other targets halt on an out-of-range
# index. Without this, on the py target a mutant reading a[-1] passes where C# halts, so the driver
# (a child process running only the translated program) makes the runtime's Seq and Array strict.
STRICT_BOUNDS = '''
def _index(n, i):
    if isinstance(i, int) and not 0 <= i < n:
        raise IndexError("index " + str(i) + " out of range [0.." + str(n) + ")")
def _slice(n, k):
    lo = 0 if k.start is None else k.start
    hi = n if k.stop is None else k.stop
    if not 0 <= lo <= hi <= n:
        raise IndexError("slice [" + str(lo) + ".." + str(hi) + "] out of range [0.." + str(n) + "]")
def _check(rows, key):
    if isinstance(key, slice):
        return _slice(len(rows), key)
    for i in (key if isinstance(key, tuple) else (key,)):
        _index(len(rows), i)
        rows = rows[i] if isinstance(i, int) and isinstance(rows, list) else rows
def _strict(cls, name, rows):
    plain = getattr(cls, name)
    def checked(self, key, *rest):
        _check(rows(self), key)
        return plain(self, key, *rest)
    setattr(cls, name, checked)
_strict(_dafny.Seq, "__getitem__", lambda s: range(len(s)))
_strict(_dafny.Seq, "set", lambda s: range(len(s)))
_strict(_dafny.Array, "__getitem__", lambda a: a.arr)
_strict(_dafny.Array, "__setitem__", lambda a: a.arr)
'''

DRIVER = f'''
import json, signal, sys, time
sys.path.insert(0, sys.argv[1])
import _dafny
import module_
MARK = {MARK!r}
{STRICT_BOUNDS}
class _Overstay(BaseException):  # not an Exception: nothing in the program under test catches it
    pass
def _overstay(signum, frame):
    raise _Overstay()
signal.signal(signal.SIGPROF, _overstay)
cpu_limit, plan = json.load(open(sys.argv[2]))
dead = set()
for index, chain, group in plan:
    if group is not None and group in dead:
        sys.stdout.write("\\n" + MARK + " end " + str(index) + ' ["skipped", "", 0]\\n'); sys.stdout.flush()
        continue
    sys.stdout.write("\\n" + MARK + " start " + str(index) + "\\n"); sys.stdout.flush()
    target = module_
    for part in chain:
        target = getattr(target, part)
    cpu = time.process_time()
    try:
        try:
            if cpu_limit:
                signal.setitimer(signal.ITIMER_PROF, cpu_limit)
            target()
        finally:  # an overstay raised here, before the timer stops, is still caught below
            signal.setitimer(signal.ITIMER_PROF, 0)
        verdict = ["passed", ""]
    except _Overstay:
        verdict = ["timeout", "timeout: more than " + format(cpu_limit, "g") + " s of CPU time"]
    except _dafny.HaltException as e:
        verdict = ["failed", str(e.message)]
    except RecursionError:
        verdict = ["crashed", "runtime error: stack overflow (RecursionError)"]
    except Exception as e:
        verdict = ["crashed", "runtime error: " + type(e).__name__ + ": " + str(e)]
    verdict.append(time.process_time() - cpu)
    if verdict[0] != "passed" and group is not None:
        dead.add(group)
    sys.stdout.write("\\n" + MARK + " end " + str(index) + " " + json.dumps(verdict) + "\\n"); sys.stdout.flush()
'''


def list_tests(module_py: str) -> list[tuple[str, list[str]]]:
    """(printed name, attribute chain to call) of each test, in the runner's order."""
    tree = ast.parse(module_py)
    runner = next(
        (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == RUNNER_FUNCTION), None
    )
    if runner is None:
        return []
    tests: list[tuple[str, list[str]]] = []
    pending: str | None = None
    for stmt in runner.body:
        if isinstance(stmt, ast.Expr) and pending is None:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.endswith(": "):
                    pending = node.value[:-2]
        elif isinstance(stmt, ast.Try) and pending is not None:
            chain = _first_call_chain(stmt.body)
            if chain:
                tests.append((pending, chain))
            pending = None
    return tests


def _first_call_chain(body: list[ast.stmt]) -> list[str] | None:
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                chain = _attribute_chain(node.func)
                if chain and chain[0] != "_dafny":
                    return chain
    return None


def _attribute_chain(node: ast.expr) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return None


def run_py(
    source: str,
    workdir: Path,
    tools: Toolchain,
    test_timeout_s: float,
    build_timeout_s: float = 600.0,
    stem: str = "prog",
    stop_on_kill: bool = False,
    cpu_limit_s: float = 0.0,
) -> RunResult:
    """test_timeout_s: wall-clock limit per test; cpu_limit_s: CPU-time limit per test (0: none)."""
    start = time.monotonic()
    workdir.mkdir(parents=True, exist_ok=True)
    dfy = workdir / f"{stem}.dfy"
    dfy.write_text(source)
    out = workdir / stem
    argv = [tools.dafny or "dafny", "translate", "py", "--include-test-runner", "--include-runtime", "--no-verify",
            "--allow-warnings", str(dfy), "-o", str(out)]
    built = run_limited(argv, workdir, tools.dafny_env(), build_timeout_s)
    pydir = workdir / f"{stem}-py"
    module_file = pydir / "module_.py"
    if built.returncode != 0 or not module_file.exists():
        why = "timed out" if built.timed_out else (built.stdout + built.stderr).strip()
        return RunResult((), build_error=why or "dafny translate failed", seconds=time.monotonic() - start,
                         build_seconds=built.wall_s)
    tests = list_tests(module_file.read_text())
    (workdir / "driver.py").write_text(DRIVER)
    verdicts: dict[int, TestResult] = {}
    cpu_times: list[float] = []
    groups = [subject_of(name) if stop_on_kill else None for name, _ in tests]
    remaining = list(range(len(tests)))
    while remaining:
        plan = [[i, tests[i][1], groups[i]] for i in remaining]
        plan_file = workdir / "plan.json"
        plan_file.write_text(json.dumps([cpu_limit_s, plan]))
        _drive(workdir, pydir, plan_file, tests, verdicts, test_timeout_s, tools, cpu_times)
        if stop_on_kill:  # a version killed by a timeout: skip its other tests on the restart
            dead = {groups[i] for i, v in verdicts.items() if v.status is not Status.PASSED}
            remaining = [i for i in remaining if i not in verdicts and groups[i] not in dead]
        else:
            remaining = [i for i in remaining if i not in verdicts]
    results = tuple(verdicts[i] for i in range(len(tests)) if i in verdicts and verdicts[i].status != SKIPPED)
    return RunResult(results, seconds=time.monotonic() - start, build_seconds=built.wall_s,
                     slowest_test_cpu_s=max(cpu_times, default=0.0))


def _drive(workdir: Path, pydir: Path, plan_file: Path, tests: list[tuple[str, list[str]]],
           verdicts: dict[int, TestResult], test_timeout_s: float, tools: Toolchain,
           cpu_times: list[float]) -> None:
    """One driver process: records verdicts (and the CPU time of each test that ended in time) until it
    ends or a test overstays its wall-clock limit; then returns."""
    env = tools.dafny_env()
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    proc = subprocess.Popen(
        [sys.executable, "-u", str(workdir / "driver.py"), str(pydir), str(plan_file)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=str(workdir), start_new_session=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
    err_chunks: list[bytes] = []
    threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()), daemon=True).start()
    current: int | None = None
    deadline = time.monotonic() + max(test_timeout_s, 60.0)  # start-up: importing the translated program
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            kill_group(proc.pid)
            proc.wait()
            if current is not None:
                verdicts[current] = TestResult(tests[current][0], Status.TIMEOUT,
                                               f"timeout: no verdict within {test_timeout_s:g} s")
            else:  # the program did not even start: give every test left an error, not a hang loop
                _fill(verdicts, tests, plan_file, Status.NOT_TESTED, "the translated program did not start in time")
            return
        if line is None:
            break
        if not line.startswith(MARK):
            continue
        _, what, index, *rest = line.rstrip("\n").split(" ", 3)
        if what == "start":
            current = int(index)
            deadline = time.monotonic() + test_timeout_s
        else:
            status, message, cpu_s = json.loads(rest[0])
            verdict = SKIPPED if status == "skipped" else Status(status)
            verdicts[int(index)] = TestResult(tests[int(index)][0], verdict, message)
            if current is not None and verdict is not Status.TIMEOUT:
                cpu_times.append(cpu_s)
            current = None
    proc.wait()
    if current is not None:  # the interpreter itself died inside a test (e.g. a segfault)
        stderr = b"".join(err_chunks).decode(errors="replace").strip().splitlines()
        verdicts[current] = TestResult(tests[current][0], Status.CRASHED,
                                       "runtime error: " + (stderr[-1] if stderr else f"exit {proc.returncode}"))
    elif proc.returncode != 0:
        stderr = b"".join(err_chunks).decode(errors="replace").strip()
        _fill(verdicts, tests, plan_file, Status.NOT_TESTED, stderr[-500:] or f"driver exit {proc.returncode}")


def _fill(verdicts: dict[int, TestResult], tests: list[tuple[str, list[str]]], plan_file: Path,
          status: Status, message: str) -> None:
    for index, _chain, _group in json.loads(plan_file.read_text())[1]:
        verdicts.setdefault(index, TestResult(tests[index][0], status, message))


def _pump(stream, lines: queue.Queue) -> None:
    for raw in iter(stream.readline, b""):
        lines.put(raw.decode(errors="replace"))
    lines.put(None)


def python_env_note() -> str:
    return f"python {sys.version.split()[0]} ({os.path.basename(sys.executable)})"
