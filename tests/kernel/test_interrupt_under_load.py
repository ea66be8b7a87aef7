"""Interrupt stops a 2 MB Write within 3 s even on a machine kept busy by two CPU-bound processes (issue #43:
it took 8 s on a loaded machine): the cell ends, the file is untouched or whole — never half — and the
conversation goes on. Repeated: what this guards is a race with the load."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from frontend import AgentKernel
from test_interrupt_stops_the_run import (
    WRITE_CHUNK,
    assert_told_truthfully,
    big_text,
    carry_on,
    interrupted,
    scripted,
    write_result,
)

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

REPEATS = 5
#: What the issue's Done-when line allows from the Interrupt to the cell's end.
STOP_WITHIN_S = 3.0
#: Lines of `big_text` in a little over 2 MB.
LINES = 48_000


@pytest.fixture
def busy_machine() -> Iterator[None]:
    """Two processes that burn a CPU each until the test ends."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


@pytest.mark.parametrize("attempt", range(REPEATS))
def test_interrupt_during_a_2_mb_write_on_a_busy_machine_stops_within_3_s(
    agent_kernel: AgentKernel, tmp_path: Path, busy_machine: None, attempt: int
) -> None:
    before = big_text("old", LINES)
    after = big_text("new", LINES)
    assert len(after.encode()) > 2_000_000
    (tmp_path / "big.txt").write_text(before)
    plan = [
        Turn(blocks=[ToolUse(name="Read", input={"file_path": "big.txt", "limit": 1})]),
        Turn(
            blocks=[ToolUse(name="Write", input={"file_path": "big.txt", "content": after})],
            chunk_size=WRITE_CHUNK,
        ),
        Turn(blocks=[Text("written")]),
    ]
    frontend, server = agent_kernel(scripted(plan))
    cell = frontend.execute("%%agent --mode bypassPermissions\nrewrite big.txt")
    frontend.wait(lambda: "Write big.txt" in cell.text(), 120, "the Write to start")
    interrupted_at = time.monotonic()
    frontend.km.interrupt_kernel()
    frontend.wait(lambda: cell.done, 60, "the interrupted cell")
    took = time.monotonic() - interrupted_at
    at_return = (tmp_path / "big.txt").read_text()
    assert at_return in (before, after), f"a half-written file: {len(at_return)} characters"
    assert took < STOP_WITHIN_S, f"the cell ended {took:.1f} s after the Interrupt"
    assert interrupted(cell) or "written" in cell.text(), cell.reply
    carry_on(frontend)
    assert (tmp_path / "big.txt").read_text() == at_return  # nothing landed after the cell returned
    assert_told_truthfully(write_result(server.requests), at_return == before)
