"""A process killed in the middle of a large write leaves the old file intact (real subprocess, real SIGKILL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import jupyter_agent

REPO = Path(jupyter_agent.__file__).resolve().parent.parent
CHILD = """
import os
import sys
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
