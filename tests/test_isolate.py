"""Child-process isolation of generation jobs: results in order, crashes, hangs and runaways as values."""

import os
import time

from dspec2test.isolate import Failed, ChildLimits, run_isolated, stall_exit


def _value(k):
    return lambda report: k * k


def test_results_come_back_in_job_order_with_parallel_children():
    assert run_isolated([_value(k) for k in range(6)], parallel=2) == [0, 1, 4, 9, 16, 25]


def test_a_crash_a_hang_and_an_exception_cost_only_their_own_job():
    def crash(report):
        os.abort()

    def hang(report):
        time.sleep(30)

    def boom(report):
        raise ValueError("bad")

    out = run_isolated([crash, _value(3), hang, boom], parallel=2, limits=ChildLimits(wall_s=2))
    assert isinstance(out[0], Failed) and "crashed" in out[0].reason
    assert out[1] == 9
    assert isinstance(out[2], Failed) and "longer than 2 s" in out[2].reason
    assert isinstance(out[3], Failed) and "ValueError: bad" in out[3].reason


def test_memory_cap_stops_a_runaway():
    def grow(report):
        blocks = []
        while True:
            blocks.append(bytearray(64 << 20))

    out = run_isolated([grow, _value(2)], limits=ChildLimits(memory_bytes=1 << 30))
    assert isinstance(out[0], Failed) and "memory" in out[0].reason
    assert out[1] == 4


def test_a_lower_limit_set_by_the_caller_stays_and_jobs_still_run():
    # `ulimit -v` (or a container) below our default cap: raising to the default is refused, so the
    # child must keep the caller's limit instead of failing every job
    import subprocess
    import sys
    script = (
        "import resource\n"
        "from dspec2test.isolate import ChildLimits, run_isolated\n"
        "low = 3 << 30\n"
        "resource.setrlimit(resource.RLIMIT_AS, (low, low))\n"
        "print(run_isolated([lambda report: resource.getrlimit(resource.RLIMIT_AS)], limits=ChildLimits(memory_bytes=6 << 30)))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == f"[({3 << 30}, {3 << 30})]", out.stdout + out.stderr


def test_a_stopped_or_crashed_job_hands_back_what_it_reported_before():
    def slow_then_hang(report):
        report(["first"])
        report(["first", "second"])
        time.sleep(30)

    def report_then_crash(report):
        report("half")
        os.abort()

    out = run_isolated([slow_then_hang, report_then_crash, _value(4)], parallel=3, limits=ChildLimits(wall_s=3))
    assert isinstance(out[0], Failed) and "longer than 3 s" in out[0].reason
    assert out[0].partial == ["first", "second"]
    assert isinstance(out[1], Failed) and "crashed" in out[1].reason and out[1].partial == "half"
    assert out[2] == 16


def test_a_job_that_keeps_reporting_is_still_stopped_at_the_wall_limit():
    def chatty(report):
        n = 0
        while True:
            n += 1
            report(n)
            time.sleep(0.05)

    start = time.monotonic()
    out = run_isolated([chatty], limits=ChildLimits(wall_s=2))
    assert time.monotonic() - start < 10
    assert isinstance(out[0], Failed) and isinstance(out[0].partial, int) and out[0].partial > 1


def test_a_child_that_gives_up_on_a_stalled_check_keeps_its_reports_and_says_why():
    stop = stall_exit(os.getpid())

    def stalls(report):
        report("two tests so far")
        stop()  # what the solver's watchdog calls when Z3 ignores its interrupt
        time.sleep(30)

    start = time.monotonic()
    out = run_isolated([stalls, _value(4)], limits=ChildLimits(wall_s=20))
    assert time.monotonic() - start < 10
    assert isinstance(out[0], Failed) and "did not stop at its time limit" in out[0].reason
    assert out[0].partial == "two tests so far"
    assert out[1] == 16


def test_giving_up_on_a_stalled_check_never_ends_the_process_that_asked_for_it():
    stall_exit(os.getpid())()  # in the parent itself: nothing happens (this test goes on)
