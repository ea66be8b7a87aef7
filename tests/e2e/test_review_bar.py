"""The run's review bar in JupyterLab: the first thing in the run's output (a long answer never pushes it off
screen, and folds after a screenful with "show all"), naming the cell by position and first line, and "Show in
notebook" scrolls to the cell and selects it."""

from __future__ import annotations

import os
import shutil
from typing import Any

from lab import (
    ARTIFACTS,
    ROOT,
    Lab,
    ScriptBox,
    agent_output,
    notebook_with_ids,
    open_notebook,
    run_cell,
    wait_cell_done,
)

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn

SHOT = "review-bar.png"
LONG_ANSWER = "\n\n".join(f"Paragraph {n} of a long answer." for n in range(60))


def test_the_review_bar_comes_first_and_show_in_notebook_selects_the_cell(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    fillers = [(f"f{n}", f"x{n} = {n}") for n in range(12)]
    notebook_with_ids(
        lab,
        "bar.ipynb",
        [
            ("load", "%load_ext jupyter_agent"),
            ("ask", "%%agent --mode acceptEdits\ntidy"),
            *fillers,
            ("far", "total = 1"),
        ],
    )
    box.set(
        [
            Turn(blocks=[ToolUse(name="NotebookRead", input={})]),
            Turn(
                blocks=[
                    ToolUse(name="NotebookEdit", input={"cell_id": "far", "new_source": "# clean\ntotal = 2"})
                ]
            ),
            Turn(blocks=[Text(LONG_ANSWER)]),
        ],
        server,
    )
    open_notebook(page, lab, "bar.ipynb")
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 1)
    output = agent_output(page)
    output.locator("text=Paragraph 0 of a long answer.").wait_for(timeout=60_000)
    more = output.locator("details.jp-agent-more summary")  # the long answer folds after a screenful
    more.wait_for(timeout=30_000)
    assert more.inner_text().startswith("show all (")
    assert not output.locator("text=Paragraph 59 of a long answer.").is_visible()
    more.click()
    output.locator("text=Paragraph 59 of a long answer.").wait_for(timeout=10_000)
    review = output.locator(".jp-agent-review").first
    review.wait_for(timeout=30_000)
    first_child = output.locator(".jp-OutputArea-child").first
    assert first_child.locator(".jp-agent-review").count() == 1  # the bar is the run's first output
    far = 14
    assert f"cell {far + 1} ('# clean') changed" in review.inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    review.screenshot(path=str(ARTIFACTS / SHOT))
    if os.environ.get("UPDATE_README_SCREENSHOT"):  # refresh the docs' image on purpose only
        shutil.copy(ARTIFACTS / SHOT, ROOT / "docs" / "images" / SHOT)
    review.locator("button:has-text('Show in notebook')").click()
    page.wait_for_function(
        f"() => document.querySelectorAll('.jp-Notebook .jp-Cell')[{far}].classList.contains('jp-mod-active')",
        timeout=15_000,
    )
    cell = page.locator(".jp-Notebook .jp-Cell").nth(far)
    page.wait_for_function(
        "el => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight; }",
        arg=cell.element_handle(),
        timeout=15_000,
    )
