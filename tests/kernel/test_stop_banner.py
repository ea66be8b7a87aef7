"""A run the user stops ends with one calm banner saying what ran — never a KeyboardInterrupt traceback, never
"stopped: interrupted" in the footer. An Interrupt still ends the cell as interrupted (a Run All stops there), in
one line; the Stop button ends it normally."""

from __future__ import annotations

from pathlib import Path

import pytest
from frontend import AgentKernel, Execution

from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.ui.interrupts import INTERRUPTED_LINE

pytestmark = pytest.mark.kernel

SLEEPER = "open('started', 'w').close()\nimport time\ntime.sleep(120)"
PLAN = [
    Turn(blocks=[ToolUse(name="RunCode", input={"code": "x = 1"})]),
    Turn(blocks=[ToolUse(name="RunCode", input={"code": SLEEPER})]),
    Turn(blocks=[Text("never reached")]),
]
BANNER = "⏹ Stopped by you — 1 tool call ran, 1 was stopped midway. What ran is kept; ask again to go on."


def errors(cell: Execution) -> list[dict[str, object]]:
    return [m["content"] for m in cell.outputs if m["msg_type"] == "error"]


def test_an_interrupt_ends_the_run_with_one_banner_and_a_one_line_interrupt(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, _ = agent_kernel(lambda body, index: PLAN[index % len(PLAN)])
    cell = frontend.execute("%%agent --mode bypassPermissions\nrun it")
    frontend.wait(lambda: (tmp_path / "started").exists(), 60, "the slow code to start")
    frontend.km.interrupt_kernel()
    frontend.wait(lambda: cell.done, 60, "the interrupted cell")
    assert cell.reply is not None and cell.reply["ename"] == "KeyboardInterrupt"  # a Run All stops here
    text = cell.text()
    assert text.count("⏹ Stopped by you") == 1 and BANNER in text, text[-2000:]
    assert 'class="jp-agent-stopped" role="status"' in cell.html()
    [error] = errors(cell)
    assert error["traceback"] == [INTERRUPTED_LINE]  # one line, no traceback
    assert "Traceback" not in text and "File " not in text and "stopped: interrupted" not in text
    assert "never reached" not in text


def test_the_stop_button_ends_the_run_with_the_banner_and_no_error(agent_kernel: AgentKernel) -> None:
    """Stop while the model is slow to answer (a click is served between the wait's ticks)."""
    plan = [
        Turn(blocks=[ToolUse(name="RunCode", input={"code": "open('ran', 'w').close()"})]),
        Turn(blocks=[Text("never reached")], delay=60),
    ]
    frontend, server = agent_kernel(lambda body, index: plan[min(index, 1)])
    cell = frontend.execute("%%agent --mode bypassPermissions\nrun it")
    frontend.wait(lambda: len(server.requests) == 2, 60, "the second request")
    frontend.click("Stop")
    frontend.wait(lambda: cell.done, 60, "the stopped cell")
    text = cell.text()
    stopped = "⏹ Stopped by you — 1 tool call ran. What ran is kept; ask again to go on."
    assert stopped in text and text.count("⏹ Stopped by you") == 1, text[-2000:]
    assert not errors(cell) and "stopped: interrupted" not in text and "never reached" not in text
