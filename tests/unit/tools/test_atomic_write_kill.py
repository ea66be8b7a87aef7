"""A process killed in the middle of a large write leaves the old file intact (real subprocess, real SIGKILL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import jupyter_agent
from jupyter_agent.base.tempfiles import sweep_stale

REPO = Path(jupyter_agent.__file__).resolve().parent.parent
CHILD = """
import os
import sys
import time
from pathlib import Path
from jupyter_agent.base.sandbox import atomic_write

real_fsync = os.fsync


def fsync_then_wait_to_be_killed(fd):
    # The temp file holds all the data; the rename has not happened. Say so, then wait to be killed.
    real_fsync(fd)
    print("written", flush=True)
    sys.stdin.read()


os.fsync = fsync_then_wait_to_be_killed
atomic_write(Path(sys.argv[1]), b"N" * (8 * 1024 * 1024))
print("done", flush=True)
"""


def _temp_files(directory: Path) -> list[Path]:
    return [p for p in directory.iterdir() if p.name.endswith(".jupyter-agent.tmp")]


def test_a_write_killed_midway_leaves_the_old_file_and_no_partial_target(tmp_path: Path) -> None:
    target = tmp_path / "results.csv"
    old = b"id,value\n1,10\n2,20\n"
    target.write_bytes(old)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(target)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert child.stdout is not None
    try:
        assert child.stdout.readline().strip() == "written"  # blocks until the child is mid-write
        temps = _temp_files(tmp_path)
        assert [p.stat().st_size for p in temps] == [8 * 1024 * 1024]
        assert target.read_bytes() == old
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(60)
    rest = child.stdout.read()
    assert child.returncode == -signal.SIGKILL
    assert "done" not in rest
    assert target.read_bytes() == old
    leftovers = _temp_files(tmp_path)
    assert all(p.name != target.name and p.name.startswith(".results.csv.") for p in leftovers)
    assert sorted(p.name for p in tmp_path.iterdir() if p not in leftovers) == ["results.csv"]


def test_the_temp_file_a_killed_writer_left_is_swept_by_the_next_run_and_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "results.csv"
    target.write_bytes(b"old\n")
    bystander = tmp_path / ".results.csv.1234-abcd.jupyter-agent.tmp"  # our pattern, another pid: not touched
    bystander.write_bytes(b"someone else's\n")
    sweep_stale()  # what other tests' killed writers left (this run's data dir is shared by its tests)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(target)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},  # the same data dir as this test (conftest's)
        text=True,
    )
    assert child.stdout is not None
    try:
        assert child.stdout.readline().strip() == "written"
        assert sweep_stale() == 0  # the writer is alive: its temp file is in use
        [left] = [p for p in _temp_files(tmp_path) if p != bystander]
        assert left.name.startswith(f".results.csv.{child.pid}-")
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(60)
    assert sweep_stale() == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [bystander.name, "results.csv"]
    assert target.read_bytes() == b"old\n"
    assert sweep_stale() == 0  # its ledger went with it


def test_a_killed_writer_not_yet_reaped_counts_as_gone(tmp_path: Path) -> None:
    """A process killed with SIGKILL stays in /proc as a zombie, start time and all, until its parent waits for
    it (a Jupyter server polls its kernels every few seconds): its temp file is still swept."""
    target = tmp_path / "results.csv"
    target.write_bytes(b"old\n")
    sweep_stale()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(target)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        text=True,
    )
    assert child.stdout is not None
    try:
        assert child.stdout.readline().strip() == "written"
        os.kill(child.pid, signal.SIGKILL)
        state = ""
        for _ in range(500):  # the kill takes effect at once, but is seen asynchronously
            state = Path(f"/proc/{child.pid}/stat").read_text().rpartition(")")[2].split()[0]
            if state == "Z":
                break
            time.sleep(0.01)
        assert state == "Z"  # not reaped yet
        assert sweep_stale() == 1
        assert sorted(p.name for p in tmp_path.iterdir()) == ["results.csv"]
    finally:
        child.wait(60)
