"""Review where the change is, in JupyterLab and Notebook 7 + Chromium.

A `default`-mode run asks to replace a cell that is scrolled out of view: the question is drawn at that cell too
(the diff with the old line struck and the new one marked, Allow / Deny / Allow all edits in this run), and the
widget's "Show in notebook" scrolls there. Allow at the cell changes the cell once and the widget records the
answer; Deny at the cell leaves it byte for byte as it was; typing into the cell while the question waits
refuses it with STALE_READ and keeps what was typed. Nothing of it is saved into the file.
"""

from __future__ import annotations

import json
import os
import shutil
from typing import Any

import pytest
from lab import (
    ARTIFACTS,
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

README_SHOT = ROOT / "docs" / "images" / "pending-at-cell.png"
TARGET = "total = sum(values)"
FILLERS = [(f"f{i}", "\n".join(f"step_{i}_{j} = {j}" for j in range(8))) for i in range(12)]


def edit_script(new_source: str, answer: str) -> list[Turn]:
    return [
        Turn(blocks=[ToolUse(name="NotebookRead", input={"cell_id": "target"})]),
        Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "target", "new_source": new_source})]),
        Turn(blocks=[Text(answer)]),
    ]


def pending_box(page: Any) -> Any:
    return page.locator(".jp-agent-pending[data-cell-id='target']")


def in_view(page: Any, selector: str) -> bool:
    """Whether the element is inside the notebook's scrolled viewport."""
    return page.evaluate(
        "(sel) => { const el = document.querySelector(sel); if (!el) return false;"
        " const box = el.getBoundingClientRect();"
        " const view = el.closest('.jp-WindowedPanel-outer, .jp-Notebook').getBoundingClientRect();"
        " return box.bottom > view.top && box.top < view.bottom; }",
        selector,
    )


def saved_cells(page: Any, lab: Lab, name: str) -> list[dict[str, Any]]:
    page.evaluate(panel_js(name, "return panel.context.save().then(() => true);"))
    return json.loads((lab.root / name).read_text())["cells"]


def count_source_changes(page: Any, name: str) -> None:
    """From now on, count the transactions that change the target cell's source (window.__targetChanges)."""
    page.evaluate(
        panel_js(
            name,
            "const cell = panel.content.model.sharedModel.cells.find(c => c.getId() === 'target');"
            " window.__targetChanges = 0;"
            " cell.changed.connect((_, change) => { if (change.sourceChange) window.__targetChanges++; });"
            " return true;",
        )
    )


def answer_at_the_cell(page: Any, agent_index: int, button: str, reply: str) -> None:
    """Run the `%%agent` cell, click `button` at the target cell once the question is there, wait for `reply`."""
    run_cell(page, agent_index)
    pending_box(page).wait_for(state="attached", timeout=60_000)
    pending_box(page).scroll_into_view_if_needed()
    pending_box(page).locator(f"button.{button}").click()
    agent_output(page).locator(f"text={reply}").wait_for(timeout=60_000)
    wait_cell_done(page, agent_index)


def watch_for_stale_marks(page: Any) -> None:
    """From now on, note whether a STALE_READ mark is ever drawn, even for a moment (window.__staleSeen)."""
    page.evaluate(
        "() => { window.__staleSeen = false; new MutationObserver(() => {"
        " if (document.querySelector('.jp-agent-pending-stale, .jp-agent-pending-note')) window.__staleSeen = true;"
        " }).observe(document.body, {subtree: true, childList: true}); }"
    )


@pytest.mark.parametrize("frontend", ["lab", "notebook7"])
def test_a_pending_edit_at_its_cell_allow_deny_and_a_keystroke_that_refuses_it(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox], frontend: str
) -> None:
    server, box = model_server
    name = f"at-cell-{frontend}.ipynb"
    notebook_with_ids(
        lab,
        name,
        [
            ("load", "%load_ext jupyter_agent"),
            ("target", TARGET),
            *FILLERS,
            ("ask", "%%agent\ndouble the total"),
        ],
    )
    opener = open_notebook if frontend == "lab" else open_notebook_7
    opener(page, lab, name)
    run_cell(page, 0)
    wait_cell_done(page, 0)
    agent_index = len(FILLERS) + 2

    # 1. Allow at the cell.
    box.set(edit_script("total = sum(values) * 2", "Doubled the total."), server)
    run_cell(page, agent_index)
    output = agent_output(page)
    output.locator(".jp-agent-approval").wait_for(timeout=60_000)
    pending_box(page).wait_for(state="attached", timeout=30_000)
    assert not in_view(page, ".jp-agent-pending[data-cell-id='target']")  # the cell is screens away
    assert pending_box(page).locator(".jp-agent-pending-del").all_text_contents() == [TARGET]
    assert pending_box(page).locator(".jp-agent-pending-add").all_text_contents() == [
        "total = sum(values) * 2"
    ]
    assert "The agent wants to change this cell" in (pending_box(page).text_content() or "")
    title = pending_box(page).locator(".jp-agent-pending-title").text_content()
    assert title == f"Edit cell 2 ('total = sum(values)') of {name}?"  # in words, by position
    assert live_sources(page, name)[1] == TARGET  # asked, not changed
    output.locator("button.jupyter-button:has-text('More…')").click()  # the answers beyond the main three
    output.locator("button.jupyter-button:has-text('Show in notebook')").click()
    wait_for(
        lambda: in_view(page, ".jp-agent-pending[data-cell-id='target']"), 15, "the page to scroll there"
    )
    if frontend == "lab":
        shot = ARTIFACTS / "pending-at-cell.png"
        ARTIFACTS.mkdir(exist_ok=True)
        top = page.locator(".jp-Notebook .jp-Cell").nth(0).bounding_box()
        target = page.locator(".jp-Notebook .jp-Cell").nth(1).bounding_box()
        assert top is not None and target is not None
        clip = {"x": top["x"] - 8, "y": top["y"] - 8, "width": top["width"] + 16}
        page.screenshot(
            path=str(shot), clip={**clip, "height": target["y"] + target["height"] - top["y"] + 16}
        )
        if os.environ.get("UPDATE_README_SCREENSHOT"):  # refresh the README's image on purpose only
            shutil.copy(shot, README_SHOT)
    count_source_changes(page, name)
    watch_for_stale_marks(page)
    pending_box(page).locator("button.jp-agent-pending-allow").click()
    output.locator("text=Doubled the total.").wait_for(timeout=60_000)
    wait_cell_done(page, agent_index)
    assert live_sources(page, name)[1] == "total = sum(values) * 2"
    assert page.evaluate("() => window.__targetChanges") == 1  # changed once
    assert page.evaluate("() => window.__staleSeen") is False  # the agent's own edit is not the user typing
    assert "NotebookEdit" in (output.text_content() or "") and "allowed once" in (output.text_content() or "")
    assert output.locator(".jp-agent-approval").count() == 0  # the widget closed with the answer
    assert pending_box(page).count() == 0 and page.locator(".jp-agent-pending").count() == 0
    saved_cells(page, lab, name)
    saved = (lab.root / name).read_text()
    assert "jp-agent-pending" not in saved and "The agent wants" not in saved
    on_disk = json.loads(saved)
    assert not [key for c in on_disk["cells"] for key in c["metadata"] if "agent" in key or "pending" in key]
    assert ["".join(c["source"]) for c in on_disk["cells"]] == live_sources(page, name)

    # 2. Deny at the cell: the cell stays byte for byte as it was.
    before = json.dumps(next(c for c in saved_cells(page, lab, name) if c["id"] == "target"))
    box.set(edit_script("total = 0", "Left it as it is."), server)
    answer_at_the_cell(page, agent_index, "jp-agent-pending-deny", "Left it as it is.")
    assert "denied" in (output.text_content() or "")
    assert pending_box(page).count() == 0
    after = json.dumps(next(c for c in saved_cells(page, lab, name) if c["id"] == "target"))
    assert after == before

    # 3. The user types into the cell while the edit waits: refused with STALE_READ, the typing stays.
    box.set(edit_script("total = 1", "You changed it; I left it alone."), server)
    sent_before = len(server.requests)
    run_cell(page, agent_index)
    pending_box(page).wait_for(state="attached", timeout=60_000)
    page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-InputArea-editor").click()
    page.keyboard.press("End")
    page.keyboard.type("  # mine")
    output.locator("text=You changed it; I left it alone.").wait_for(timeout=60_000)
    wait_cell_done(page, agent_index)
    typed = "total = sum(values) * 2  # mine"
    assert live_sources(page, name)[1] == typed
    assert "refused (STALE_READ)" in (output.text_content() or "")
    note = page.locator(".jp-agent-pending-note[data-cell-id='target']")
    assert "STALE_READ" in (note.text_content() or "") and "your text is kept" in (note.text_content() or "")
    results = [
        block
        for request in server.requests[sent_before:]
        for message in request["messages"][-1:]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    refused = [r for r in results if r.get("is_error")]
    assert refused and "STALE_READ" in json.dumps(refused[-1]["content"])
    note.locator("button.jp-agent-pending-dismiss").click()
    assert note.count() == 0
    assert typed in json.dumps(saved_cells(page, lab, name))

    # 4. "Allow all edits in this run" at the cell: this edit, and the next one without asking.
    box.set(
        [
            Turn(blocks=[ToolUse(name="NotebookRead", input={"cell_id": "target"})]),
            Turn(
                blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "target", "new_source": "total = 3"})]
            ),
            Turn(
                blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "target", "new_source": "total = 4"})]
            ),
            Turn(blocks=[Text("Two edits, one question.")]),
        ],
        server,
    )
    answer_at_the_cell(page, agent_index, "jp-agent-pending-allow-edits", "Two edits, one question.")
    assert live_sources(page, name)[1] == "total = 4"
    shown = output.text_content() or ""
    assert shown.count("allowed, with every edit for the rest of this run") == 1
    assert output.locator(".jp-agent-approval").count() == 0


def test_a_new_cell_a_deleted_cell_and_cells_to_run_are_drawn_where_they_are(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    """Each waits for an answer at its place: the ghost right below the cell it would follow, the cell to
    delete dimmed, each cell of a run marked with its place in the batch; Deny leaves the notebook as it was."""
    server, box = model_server
    name = "drawn.ipynb"
    cells = [("load", "%load_ext jupyter_agent"), ("a", "x = 1"), ("b", "y = 2"), ("ask", "%%agent\ntidy")]
    notebook_with_ids(lab, name, cells)
    box.set(
        [
            Turn(blocks=[ToolUse(name="NotebookRead", input={})]),
            Turn(blocks=[ToolUse(name="NotebookEdit", input={"edit_mode": "insert", "cell_type": "markdown", "new_source": "## Totals", "cell_id": "a"})]),
            Turn(blocks=[ToolUse(name="NotebookEdit", input={"edit_mode": "delete", "cell_id": "b"})]),
            Turn(blocks=[ToolUse(name="RunCell", input={"cell_id": "a", "range": "below"})]),
            Turn(blocks=[Text("Nothing done.")]),
        ],
        server,
    )  # fmt: skip
    open_notebook(page, lab, name)
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 3)
    output = agent_output(page)

    ghost = page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-agent-ghost-cell")
    ghost.wait_for(timeout=60_000)  # inside cell a, below its input: where the new cell would go
    assert ghost.locator(".jp-agent-pending-add").all_text_contents() == ["## Totals"]
    assert "insert a new markdown cell here" in (ghost.text_content() or "")
    ghost.locator("button.jp-agent-pending-deny").click()

    doomed = page.locator(".jp-Notebook .jp-Cell.jp-agent-pending-deleted")
    doomed.wait_for(timeout=60_000)
    assert doomed.locator(".jp-InputArea-editor").inner_text().strip() == "y = 2"
    assert "delete this cell" in (doomed.locator(".jp-agent-pending").text_content() or "")
    assert doomed.locator(".jp-agent-pending-diff").count() == 0
    doomed.locator("button.jp-agent-pending-deny").click()

    runs = page.locator(".jp-agent-pending-run")
    wait_for(
        lambda: runs.count() == 2, 60, "the two cells to run marked (not the empty one Shift+Enter added)"
    )
    assert [box.get_attribute("data-cell-id") for box in runs.all()] == ["a", "b"]
    assert "(2 of 2)" in (runs.nth(1).text_content() or "")
    assert runs.nth(0).locator("button.jp-agent-pending-allow-edits").count() == 0  # a run is no edit
    runs.nth(1).locator("button.jp-agent-pending-deny").click()  # any of them answers for the batch
    output.locator("text=Nothing done.").wait_for(timeout=60_000)
    wait_cell_done(page, 3)
    assert page.locator(".jp-agent-pending, .jp-agent-pending-deleted").count() == 0
    assert live_sources(page, name) == [*(source for _, source in cells), ""]  # + the cell Shift+Enter added
    assert (output.text_content() or "").count(": denied") == 3  # each question's record
