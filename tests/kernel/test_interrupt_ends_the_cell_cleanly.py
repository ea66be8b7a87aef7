"""An Interrupt ends a `%%agent` cell the same clean way whenever it comes: while the answer after a large Write
streams, while the cell draws its review, or just after the cell ended — never IPython's "Unexpected exception
formatting exception", never a traceback through ipywidgets or zmq, and the kernel runs the next cell.

The timings are races, so the scenario is repeated with the Interrupt spread over the end of the run."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from frontend import AgentKernel, Execution, KernelFrontend

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

BIG = "".join(f"line {n:06d} {'x' * 60}\n" for n in range(28_000))  # ~2 MB
#: Frames a clean end may show: the cell, IPython's magic call, the magic and `KernelAgent.run_cell`.
OURS = ("magics.py", "kernel_agent.py", "interactiveshell.py", "Cell In[")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def answers(body: dict[str, Any], index: int) -> Turn:
    """A Write of ~2 MB for each request, then a streamed answer once its result is in."""
    last = body["messages"][-1]["content"]
    if isinstance(last, list) and any(b.get("type") == "tool_result" for b in last if isinstance(b, dict)):
        return Turn(blocks=[Text("answer " * 400)], chunk_size=14, delay=0.002)
    return Turn(
        blocks=[ToolUse(name="Write", input={"file_path": f"big{index}.txt", "content": BIG})],
        chunk_size=1 << 16,
    )


def ended_cleanly(cell: Execution) -> str | None:
    """What is wrong with how the cell ended (None: it ended cleanly, interrupted or not)."""
    assert cell.reply is not None
    text = cell.text()
    if "Unexpected exception formatting exception" in text:
        return "IPython failed to format the traceback:\n" + text[-2000:]
    if cell.reply["status"] == "ok":
        return None
    if cell.reply.get("ename") != "KeyboardInterrupt":
        return f"ended with {cell.reply.get('ename')}: {cell.reply.get('evalue')}"
    errors = [m["content"] for m in cell.outputs if m["msg_type"] == "error"]
    if len(errors) != 1:
        return f"{len(errors)} error outputs"
    lines = [ANSI.sub("", line).splitlines()[0] for line in errors[0]["traceback"] if line.strip()]
    frames = [line for line in lines if line.startswith(("File ", "Cell In["))]
    foreign = [line for line in frames if not any(ours in line for ours in OURS)]
    return f"a traceback through {foreign}" if foreign else None


def allow(frontend: KernelFrontend, asked: int) -> None:
    frontend.wait(lambda: len(frontend.buttons("Allow once")) > asked, 60, "the Write's approval")
    frontend.click("Allow once")


def still_runs_cells(frontend: KernelFrontend) -> None:
    time.sleep(0.3)  # an Interrupt sent to an idle kernel has arrived
    after = frontend.run("print('still', 'here')", timeout=30)
    assert "still here" in after.text() and after.reply is not None and after.reply["status"] == "ok"


@pytest.mark.parametrize("delay", [0.0, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 1.2])
def test_an_interrupt_around_the_end_of_a_run_after_a_large_write_ends_the_cell_cleanly(
    agent_kernel: AgentKernel, tmp_path: Path, delay: float
) -> None:
    frontend, _ = agent_kernel(answers)
    for attempt in range(2):
        asked = len(frontend.buttons("Allow once"))
        cell = frontend.execute(f"%%agent --new\nwrite {attempt}")
        allow(frontend, asked)  # a comm message handled during the cell, as every click is
        frontend.wait(lambda cell=cell: "answer" in cell.text() or cell.done, 60, "the answer to stream")
        time.sleep(delay)
        frontend.km.interrupt_kernel()
        frontend.wait(lambda cell=cell: cell.done, 60, "the cell to end")
        assert ended_cleanly(cell) is None, ended_cleanly(cell)
        still_runs_cells(frontend)


def test_an_interrupt_after_a_cell_that_handled_a_click_leaves_the_idle_kernel_running_cells(
    agent_kernel: AgentKernel,
) -> None:
    """ipykernel keeps the idle kernel's SIGINT handler in one attribute, which a comm message handled during the
    cell overwrote: the idle kernel then took an Interrupt as KeyboardInterrupt in its event loop and never ran
    another cell."""
    frontend, _ = agent_kernel(answers)
    for attempt in range(2):
        asked = len(frontend.buttons("Allow once"))
        cell = frontend.execute(f"%%agent --new\nwrite {attempt}")
        allow(frontend, asked)
        frontend.wait(lambda cell=cell: cell.done, 120, "the run to end")
        assert cell.reply is not None and cell.reply["status"] == "ok", cell.text()[-2000:]
        frontend.km.interrupt_kernel()
        still_runs_cells(frontend)
