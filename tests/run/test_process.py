import os
import subprocess
import sys
import time
from pathlib import Path

from dspec2test.run.process import group_runs, run_limited

PY = sys.executable


def test_timeout_kills_the_whole_group_and_keeps_earlier_output(tmp_path: Path) -> None:
    # A child that would outlive its parent if only the parent were killed.
    script = ("import subprocess, sys, time; print('before', flush=True); "
              f"subprocess.Popen([{PY!r}, '-c', 'import time; time.sleep(30)', 'grandchild-marker']); "
              "time.sleep(30)")
    done = run_limited([PY, "-c", script], tmp_path, dict(os.environ), timeout_s=1.5)
    assert done.timed_out and done.returncode is None
    assert done.stdout == "before\n"
    time.sleep(0.3)
    alive = subprocess.run(["pgrep", "-f", "grandchild-marker"], capture_output=True, text=True).stdout
    assert alive == ""


def test_limit_counts_from_the_start_signal(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    script = f"import time, pathlib; time.sleep(1.0); pathlib.Path({str(marker)!r}).touch(); time.sleep(0.5)"
    # 1.2 s from launch would cut it; 1.2 s from the marker does not.
    done = run_limited([PY, "-c", script], tmp_path, dict(os.environ), timeout_s=1.2,
                       started=lambda pgid: marker.exists())
    assert not done.timed_out and done.returncode == 0 and done.started


def test_hand_over_stops_once_started(tmp_path: Path) -> None:
    done = run_limited([PY, "-c", "import time; time.sleep(30)"], tmp_path, dict(os.environ), timeout_s=60,
                       started=lambda pgid: True, hand_over=True)
    assert done.handed_over and not done.timed_out and done.wall_s < 5


def test_group_runs_finds_a_child_by_argument() -> None:
    proc = subprocess.Popen(["sh", "-c", "sleep 7.25 & wait"], start_new_session=True)
    try:
        deadline = time.monotonic() + 5
        while not group_runs(proc.pid, "7.25") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert group_runs(proc.pid, "7.25")
        assert not group_runs(proc.pid, "7.5")
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()


def test_a_child_dies_with_the_process_that_started_it(tmp_path: Path) -> None:
    # a benchmark killed from outside must not leave its (possibly hung) test programs running
    parent = ("import os, sys, pathlib; from dspec2test.run.process import run_limited; "
              f"run_limited([{PY!r}, '-c', 'import time; time.sleep(60)', 'orphan-' + 'marker-{os.getpid()}'], "
              f"pathlib.Path({str(tmp_path)!r}), dict(os.environ), timeout_s=60)")
    proc = subprocess.Popen([PY, "-c", parent])
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if subprocess.run(["pgrep", "-f", f"orphan-marker-{os.getpid()}"], capture_output=True).stdout:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the child never started")
    proc.kill()
    proc.wait()
    time.sleep(0.5)
    assert subprocess.run(["pgrep", "-f", f"orphan-marker-{os.getpid()}"], capture_output=True).stdout == b""
