"""The subprocess runner: timeouts kill the whole process group; output is capped head and tail."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from jupyter_agent.permissions.process import run_process


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return status.exists() and status.read_text().split()[2] != "Z"


def test_a_timeout_kills_the_children_too(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    script = f"sleep 60 & echo $! > {pidfile}; trap '' TERM; wait"
    result = asyncio.run(run_process(["bash", "-c", script], cwd=tmp_path, timeout=0.5, grace=0.5))
    assert result.timed_out
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def test_huge_output_keeps_head_and_tail_and_says_what_was_cut(tmp_path: Path) -> None:
    script = "echo FIRST; for i in $(seq 1 200000); do echo line$i; done; echo LAST"
    result = asyncio.run(run_process(["bash", "-c", script], cwd=tmp_path, timeout=30, max_output_chars=2000))
    assert result.stdout.startswith("FIRST")
    assert result.stdout.rstrip().endswith("LAST")
    assert "cut" in result.stdout
    assert len(result.stdout) < 5000
    assert result.returncode == 0


def test_exit_code_and_stderr_are_reported(tmp_path: Path) -> None:
    result = asyncio.run(run_process(["bash", "-c", "echo oops >&2; exit 3"], cwd=tmp_path, timeout=10))
    assert (result.returncode, result.stderr.strip(), result.timed_out) == (3, "oops", False)
