"""A pattern cannot hang the kernel: the worst Glob pattern the red team found, in a real kernel, then Interrupt.

`*a*a*…*b` against a long name took a backtracking matcher exponential time while holding the GIL, so the kernel
answered nothing, Interrupt included. Now the match is linear (RE2) and off the event loop: the Glob finishes,
Interrupt stops the cell, and the next `%%agent` runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from frontend import AgentKernel, result_text, tool_results

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

WORST = "*a" * 14 + "*b"


def test_interrupt_stops_a_cell_after_the_worst_glob_and_the_next_run_works(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    (tmp_path / ("a" * 80)).write_text("")
    slow = Turn(blocks=[Text("word " * 400)], delay=0.05, chunk_size=5)
    script = [
        Turn(
            blocks=[
                ToolUse(name="Glob", input={"pattern": WORST}),
                ToolUse(name="Glob", input={"pattern": "{a,b}" * 14}),
            ]
        ),
        slow,
        Turn(blocks=[Text("fresh answer")]),
    ]
    frontend, server = agent_kernel(script)
    cell = frontend.execute("%%agent\nfind the files")
    frontend.wait(lambda: "word word" in cell.text(), 60, "the turn after the Globs")
    frontend.km.interrupt_kernel()
    frontend.wait(lambda: cell.done, 30, "the interrupted cell")
    assert cell.reply is not None and cell.reply["ename"] == "KeyboardInterrupt"
    globbed, braces = (result_text(block) for block in tool_results(server.requests[1]))
    assert "No files match" in globbed
    assert braces.startswith("INVALID_ARGS") and "at most 1024 are allowed" in braces
    assert "fresh answer" in frontend.run("%%agent\nagain", timeout=60).text()
