"""A long day in one notebook does not gather widgets: every run's Stop button, approvals and review footer are
closed (with their layout and style models) once they are answered, hidden or replaced, in the kernel and in the
frontend, so run 50 leaves as many widget models alive as run 10."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from frontend import AgentKernel, KernelFrontend

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

COUNT_IN_KERNEL = "import ipywidgets.widgets.widget as _w; print('WIDGETS', len(_w._instances))"


def one_run(n: int) -> list[Turn]:
    """Read a.txt, change its number (asks: Allow once), answer."""
    return [
        Turn(blocks=[ToolUse(name="Read", input={"file_path": "a.txt"})]),
        Turn(
            blocks=[
                ToolUse(
                    name="Edit",
                    input={"file_path": "a.txt", "old_string": f"v{n}", "new_string": f"v{n + 1}"},
                )
            ]
        ),
        Turn(blocks=[Text(f"run {n} done")]),
    ]


def run_and_allow(frontend: KernelFrontend, n: int) -> None:
    asked = len(frontend.buttons("Allow once"))
    cell = frontend.execute(f"%%agent\nrun {n}")
    frontend.wait(lambda: len(frontend.buttons("Allow once")) > asked, 60, f"run {n}'s approval")
    frontend.click("Allow once")
    frontend.wait(lambda: cell.done, 60, f"run {n}")
    assert f"run {n} done" in cell.text() and cell.reply is not None and cell.reply["status"] == "ok"


def widgets_in_kernel(frontend: KernelFrontend) -> int:
    line = next(ln for ln in frontend.run(COUNT_IN_KERNEL).text().splitlines() if ln.startswith("WIDGETS"))
    return int(line.split()[1])


def test_widget_models_alive_after_50_runs_are_those_after_10(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("v0\n")
    frontend, _ = agent_kernel([turn for n in range(50) for turn in one_run(n)])
    alive: dict[int, tuple[int, int]] = {}
    for n in range(50):
        run_and_allow(frontend, n)
        if n + 1 in (10, 50):
            alive[n + 1] = (widgets_in_kernel(frontend), len(frontend.live_widgets()))
    assert (tmp_path / "a.txt").read_text() == "v50\n"
    (kernel_10, page_10), (kernel_50, page_50) = alive[10], alive[50]
    assert kernel_50 == kernel_10, json.dumps(alive)
    assert page_50 == page_10, json.dumps(alive)
    assert page_10 <= 40  # the live review of the last run (a row, Keep all / Undo all) and little else
    footers = [w for w in frontend.live_widgets() if "jp-agent-review" in w.state.get("_dom_classes", [])]
    assert len(footers) == 1  # the newest run's review; the older ones are static HTML
