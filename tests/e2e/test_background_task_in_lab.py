"""In JupyterLab + Chromium: a background Task's result appears in the cell that started it, after that cell has
ended, and not in a later cell; also when the page was saved and reloaded meanwhile (the reloaded page knows no
display ids: the kernel's `static_view` is what it writes into the output)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from lab import (
    Lab,
    ScriptBox,
    after_pending_tasks,
    cell_output,
    open_notebook,
    run_cell,
    wait_cell_done,
    write_notebook,
)

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn

REPORT = "The loader is io/load.py: load_csv reads the file.\nIt is called from main.py."


PANEL = "window.jupyterapp.shell.currentWidget"
#: Whether the kernel holds a review comm of the page (the labextension opens one when the page loads).
REVIEW_COMM_OPEN = f"""async () => {{
  const k = {PANEL}.sessionContext.session.kernel;
  const reply = await k.requestCommInfo({{ target_name: 'jupyter_agent.review' }});
  return reply.content.status === 'ok' && Object.keys(reply.content.comms).length > 0;
}}"""


def _script(release: threading.Event) -> Callable[[dict[str, Any], int], Turn]:
    def script(body: dict[str, Any], index: int) -> Turn:
        if "You are a sub-agent" in body["system"][0]["text"]:
            release.wait(120)
            return Turn(blocks=[Text(REPORT)])
        last = body["messages"][-1]["content"]
        if not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in last):
            task = {
                "description": "Find the loader",
                "prompt": "Find the CSV loader.",
                "run_in_background": True,
            }
            return Turn(blocks=[ToolUse(name="Task", input=task, id="toolu_bg")])
        return Turn(blocks=[Text("The search runs in the background.")])

    return script


@pytest.mark.parametrize("reload", [False, True], ids=["same page", "page reloaded meanwhile"])
def test_a_background_task_shows_its_result_in_the_cell_that_started_it(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox], reload: bool
) -> None:
    server, box = model_server
    release = threading.Event()
    box.set(_script(release), server)
    name = f"background-{reload}.ipynb"
    write_notebook(
        lab,
        name,
        ["%load_ext jupyter_agent", "%%agent\nfind the loader in the background", "print('later cell')"],
    )
    open_notebook(page, lab, name)
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 1)
    wait_cell_done(page, 1)
    cell_output(page, 1).locator("text=in the background as agent_1").wait_for(timeout=60_000)
    if reload:
        page.evaluate(f"() => {PANEL}.context.save()")
        open_notebook(page, lab, name)  # a reload: the page knows no display id of the old one
        page.locator(".jp-Notebook .jp-Cell").nth(1).locator("text=in the background as agent_1").wait_for()
        page.wait_for_function(REVIEW_COMM_OPEN, timeout=30_000)  # the reloaded page's review comm
        after_pending_tasks(page)
    release.set()
    started = cell_output(page, 1)
    started.locator("text=done in the background (agent_1)").wait_for(timeout=60_000)
    run_cell(page, 2)
    wait_cell_done(page, 2)
    assert cell_output(page, 2).inner_text().strip() == "later cell"
    started.locator(".jp-agent-card summary:has-text('done in the background')").click()
    started.locator("text=It is called from main.py.").wait_for(timeout=10_000)
