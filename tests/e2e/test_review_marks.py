"""Review after a run, in JupyterLab and Notebook 7: the cells the run added, changed or deleted are marked, each
with Keep and Undo; Undo reverts only that cell and refuses one the user changed since; the marks are never saved
into the file, and a reload shows them again (the kernel re-sends them)."""

from __future__ import annotations

import json
import os
import shutil
from typing import Any

import pytest
from lab import (
    ROOT,
    Lab,
    ScriptBox,
    agent_output,
    live_sources,
    notebook_with_ids,
    open_notebook,
    open_notebook_7,
    panel_js,
    run_cell,
    wait_cell_done,
    wait_for,
)

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn

ARTIFACTS = ROOT / "test-artifacts"

README_SHOT = ROOT / "docs" / "images" / "review-marks.png"


def edit(cell_id: str, source: str, **more: str) -> Turn:
    return Turn(
        blocks=[ToolUse(name="NotebookEdit", input={"cell_id": cell_id, "new_source": source, **more})]
    )


SCRIPT = [
    Turn(blocks=[ToolUse(name="NotebookRead", input={})]),
    edit("load", "df = load()", cell_type="code", edit_mode="insert"),
    edit("chg1", "total = sum(values) * 2"),
    edit("chg2", "mean = total / 3"),
    edit("gone", "", edit_mode="delete"),
    Turn(blocks=[Text("Reviewed your cells.")]),
]


def bars(page: Any) -> Any:
    return page.locator(".jp-agent-review-bar")


def bar_of(page: Any, cell_id: str) -> Any:
    return page.locator(f".jp-agent-review-bar[data-cell-id='{cell_id}']")


def click(page: Any, cell_id: str, label: str) -> None:
    bar_of(page, cell_id).locator(f"button.jp-agent-review-button:text-is('{label}')").click()


def ids(page: Any, path: str) -> list[str]:
    return page.evaluate(panel_js(path, "return panel.content.model.sharedModel.cells.map(c => c.getId());"))


@pytest.mark.parametrize("frontend", ["lab", "notebook7"])
def test_review_marks_keep_undo_refuse_are_not_saved_and_come_back_after_a_reload(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox], frontend: str
) -> None:
    server, box = model_server
    name = f"review-{frontend}.ipynb"
    notebook_with_ids(
        lab,
        name,
        [
            ("load", "%load_ext jupyter_agent"),
            ("ask", "%%agent --mode acceptEdits\ntidy up"),
            ("chg1", "total = sum(values)"),
            ("chg2", "mean = total / 2"),
            ("gone", "scratch = 1"),
            ("end", "print(mean)"),
        ],
    )
    box.set(SCRIPT, server)
    opener = open_notebook if frontend == "lab" else open_notebook_7
    opener(page, lab, name)
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 1)
    agent_output(page).locator("text=Reviewed your cells.").wait_for(timeout=60_000)
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-agent-review-bar').length === 4", timeout=30_000
    )
    (added,) = [i for i in ids(page, name) if i not in ("load", "ask", "chg1", "chg2", "end")]
    assert page.locator(".jp-Cell.jp-agent-review-added").count() == 1
    assert page.locator(".jp-Cell.jp-agent-review-changed").count() == 2
    assert "agent deleted cell gone" in bar_of(page, "gone").inner_text()
    click(page, "chg1", "diff")
    diff = bar_of(page, "chg1").locator(".jp-agent-review-diff")
    assert diff.inner_text() == "- total = sum(values)\n+ total = sum(values) * 2"
    if frontend == "lab":
        bar_of(page, "chg1").scroll_into_view_if_needed()
        shot = ARTIFACTS / "review-marks.png"
        page.locator(".jp-Notebook").first.screenshot(path=str(shot))
        if os.environ.get("UPDATE_README_SCREENSHOT"):  # refresh the README's image on purpose only
            shutil.copy(shot, README_SHOT)

    click(page, added, "Keep")  # Keep clears that mark and changes nothing
    wait_for(lambda: bar_of(page, added).count() == 0, 15, "the kept mark to go")
    assert page.locator(".jp-Cell.jp-agent-review-added").count() == 0
    assert "df = load()" in live_sources(page, name)

    click(page, "chg1", "Undo")  # Undo of one cell reverts only that cell
    wait_for(lambda: "total = sum(values)" in live_sources(page, name), 15, "chg1 put back")
    wait_for(lambda: bar_of(page, "chg1").count() == 0, 15, "chg1's mark to go")
    assert live_sources(page, name)[3:5] == ["total = sum(values)", "mean = total / 3"]
    assert "gone" not in ids(page, name) and added in ids(page, name)

    page.evaluate(
        panel_js(name, "panel.content.model.sharedModel.cells[4].setSource('mean = total / 4'); return 1;")
    )
    click(page, "chg2", "Undo")  # refused: the user changed it since
    bar_of(page, "chg2").locator(".jp-agent-review-reason").wait_for(timeout=15_000)
    assert bar_of(page, "chg2").locator(".jp-agent-review-reason").inner_text() == (
        "Not undone: it changed after the agent edited it; undoing would lose those changes — edit it by hand "
        "or ask the agent"
    )
    assert live_sources(page, name)[4] == "mean = total / 4"

    click(page, "gone", "Restore")
    wait_for(lambda: "gone" in ids(page, name), 15, "the deleted cell restored")
    assert live_sources(page, name)[5] == "scratch = 1"

    page.evaluate(panel_js(name, "return panel.context.save().then(() => true);"))
    saved = (lab.root / name).read_text()
    on_disk = json.loads(saved)
    # no mark at any cell in the file (the run's own review output keeps its static rendering, by design)
    marks = (
        "jp-agent-review-bar",
        "jp-agent-review-added",
        "jp-agent-review-changed",
        "jp-agent-review-button",
    )
    assert not [mark for mark in marks if mark in saved], saved
    assert ["".join(c["source"]) for c in on_disk["cells"]] == live_sources(page, name)
    assert not [key for c in on_disk["cells"] for key in c["metadata"] if "review" in key or "agent" in key]
    assert set(on_disk["metadata"]) <= {"kernelspec", "language_info"}
    assert bars(page).count() == 1  # chg2 is still pending

    page.reload()
    opener(page, lab, name)
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-agent-review-bar').length === 1", timeout=30_000
    )
    assert bar_of(page, "chg2").count() == 1
    assert page.locator(".jp-Cell.jp-agent-review-changed").count() == 1
