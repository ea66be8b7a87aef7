"""A kernel killed (kill -9) in the middle of a Write leaves its temp file; the next run, in a new kernel, removes
it — also while the dead kernel is not yet reaped by the process that started it (a zombie, as it is until the
Jupyter server or jupyter_client polls it)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from frontend import AgentKernel

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

#: Runs in the first kernel: the Write's temp file gets all its data, then the write waits to be killed.
STALL_THE_WRITE = """
import os, time
_real_fsync = os.fsync
def _fsync_then_wait(fd):
    _real_fsync(fd)
    if os.readlink(f"/proc/self/fd/{fd}").endswith(".jupyter-agent.tmp"):
        open("mid-write", "w").close()
        time.sleep(600)
os.fsync = _fsync_then_wait
"""


def temp_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".jupyter-agent.tmp"))


def test_the_next_run_in_a_new_kernel_removes_the_temp_file_a_killed_kernel_left(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    (tmp_path / "data.csv").write_text("old\n")
    write = Turn(
        blocks=[ToolUse(name="Write", input={"file_path": "new.csv", "content": "n" * 200_000})],
        chunk_size=65536,
    )
    first, _ = agent_kernel([write, Turn(blocks=[Text("never")])])
    first.run(STALL_THE_WRITE)
    first.execute("%%agent --mode bypassPermissions\nwrite new.csv")
    first.wait(lambda: (tmp_path / "mid-write").exists(), 60, "the Write to be in the middle of its write")
    [left] = temp_files(tmp_path)
    pid: int = getattr(first.km.provisioner, "pid")  # noqa: B009 (LocalProvisioner's, not on the base class)
    os.kill(pid, signal.SIGKILL)  # not reaped: a zombie until the manager polls it
    assert temp_files(tmp_path) == [left] and not (tmp_path / "new.csv").exists()

    second, _ = agent_kernel([Turn(blocks=[Text("hello again")])])
    cell = second.run("%%agent\nhello", timeout=60)
    assert "hello again" in cell.text()
    assert temp_files(tmp_path) == []
    assert "removed 1 temp file(s) a stopped kernel left behind" in cell.text()
    assert (tmp_path / "data.csv").read_text() == "old\n"  # nothing else touched
