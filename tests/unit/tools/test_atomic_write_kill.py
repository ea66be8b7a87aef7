"""A process killed in the middle of a large write leaves the old file intact (real subprocess, real SIGKILL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import jupyter_agent

REPO = Path(jupyter_agent.__file__).resolve().parent.parent
CHILD = """
import sys
from pathlib import Path
from jupyter_agent.tools.sandbox import atomic_write

payload = b"N" * (256 * 1024 * 1024)
print("ready", flush=True)
atomic_write(Path(sys.argv[1]), payload)
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
        [sys.executable, "-c", CHILD, str(target)], stdout=subprocess.PIPE, env=env, text=True
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    deadline = time.monotonic() + 60
    seen_partial = False
    while time.monotonic() < deadline and child.poll() is None:
        temps = _temp_files(tmp_path)
        if temps and temps[0].stat().st_size > 0:
            seen_partial = True
            break
        time.sleep(0.0005)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    rest = child.stdout.read()
    assert seen_partial, "the child finished before it could be killed mid-write"
    assert child.returncode == -signal.SIGKILL
    assert "done" not in rest
    assert target.read_bytes() == old
    leftovers = _temp_files(tmp_path)
    assert all(p.name != target.name and p.name.startswith(".results.csv.") for p in leftovers)
    assert sorted(p.name for p in tmp_path.iterdir() if p not in leftovers) == ["results.csv"]
