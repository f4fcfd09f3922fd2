"""The Python target's test driver: the translated program's tests run one at a time under a watch.

`dafny test` buffers its child's output and stops at the first uncaught exception, so after a hang
or a crash a resume means compiling again. Instead the program is translated once (`dafny translate
py --include-test-runner`), the test list is read out of the runner Dafny generated (Python `ast`, not
regexes), and this small driver calls each test itself, framing it with marker lines (`start`, then
`end [how, message, cpu_s]`) stamped like the tests' own. An uncaught runtime error ends that test
only; a test over its CPU-time limit (a profiling timer, so machine load does not count) ends with
an exception and the next test runs in the same process; the wall-clock watch in the executor is the
backstop for what the timer cannot interrupt, after which the driver restarts without recompiling.
A test given a wall-clock limit of its own (the short limit of the hang rule, run/hangs.py) is stopped
by an alarm at that limit the same way, ending `wall-limit`, and the next test runs without a restart.
Each `end` frame carries the test's wall time too: the hang rule derives its short limit from them.

Python lists wrap negative indices and clamp slices where Dafny's other targets halt on an index out
of range, so the driver makes the runtime's sequences and arrays strict: a program reading `a[-1]`
crashes on py as it does on C#.
"""

from __future__ import annotations

import ast

RUNNER_FUNCTION = "Test____Main____"

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

# argv: the translated program's folder, the plan file. The plan: [cpu_limit_s, stop_on_kill, [[frame,
# name, chain, group, wall_limit_s], ...]]; frame is the stamped mark of the test's version; a wall
# limit of 0 leaves the test to the executor's watch. A group (a program version in a batched run)
# whose test did not return normally is dead when stop-on-kill is asked for.
DRIVER = f'''
import json, signal, sys, time
sys.path.insert(0, sys.argv[1])
sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
import _dafny
import module_
{STRICT_BOUNDS}
class _Overstay(BaseException):  # not an Exception: nothing in the program under test catches it
    pass
class _WallOver(BaseException):
    pass
def _overstay(signum, frame):
    raise _Overstay()
def _wallover(signum, frame):
    raise _WallOver()
signal.signal(signal.SIGPROF, _overstay)
signal.signal(signal.SIGALRM, _wallover)
cpu_limit, stop_on_kill, plan = json.load(open(sys.argv[2]))
dead = set()
def say(frame, text):
    sys.stdout.write("\\n" + frame + " " + text + "\\n"); sys.stdout.flush()
for frame, name, chain, group, wall_limit in plan:
    if stop_on_kill and group in dead:
        continue
    say(frame, "start " + name)
    target = module_
    for part in chain:
        target = getattr(target, part)
    cpu = time.process_time()
    wall = time.monotonic()
    try:
        try:
            if cpu_limit:
                signal.setitimer(signal.ITIMER_PROF, cpu_limit)
            if wall_limit:
                signal.setitimer(signal.ITIMER_REAL, wall_limit)
            target()
        finally:  # an overstay raised here, before the timers stop, is still caught below
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
        end = ["returned", ""]
    except _Overstay:
        end = ["cpu-limit", "more than " + format(cpu_limit, "g") + " s of CPU time"]
    except _WallOver:
        end = ["wall-limit", ""]
    except _dafny.HaltException as e:
        end = ["halted", str(e.message)]
    except RecursionError:
        end = ["crashed", "stack overflow (RecursionError)"]
    except Exception as e:
        end = ["crashed", type(e).__name__ + ": " + str(e)]
    end.append(time.process_time() - cpu)
    end.append(time.monotonic() - wall)
    if end[0] != "returned":
        dead.add(group)
    say(frame, "end " + json.dumps(end))
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
