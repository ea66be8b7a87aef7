"""The pending edit at its cell answers the keyboard there: Ctrl+Enter in that cell allows it (the cell is changed
once and not run), Ctrl+Backspace denies it (the cell keeps its text: no word is deleted). Its buttons are
JupyterLab's own accept / reject buttons."""

from __future__ import annotations

from typing import Any

from a11y import CONTRAST_JS
from lab import (
    Lab,
    ScriptBox,
    agent_output,
    execution_counts,
    live_sources,
    notebook_with_ids,
    open_notebook,
    run_cell,
    wait_cell_done,
)

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn

NAME = "keys-at-cell.ipynb"
TARGET = "total = sum([1, 2])"


def edit_script(new_source: str, answer: str) -> list[Turn]:
    return [
        Turn(blocks=[ToolUse(name="NotebookRead", input={"cell_id": "target"})]),
        Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "target", "new_source": new_source})]),
        Turn(blocks=[Text(answer)]),
    ]


def press_in_target(page: Any, keys: str) -> None:
    """Wait for the pending edit at the target cell, put the cursor at the end of its text, press `keys`."""
    box = page.locator(".jp-agent-pending[data-cell-id='target']")
    box.wait_for(timeout=60_000)
    page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-InputArea-editor .cm-content").click()
    page.keyboard.press("End")
    page.keyboard.press(keys)


def test_ctrl_enter_allows_and_ctrl_backspace_denies_in_the_cell(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    notebook_with_ids(
        lab, NAME, [("load", "%load_ext jupyter_agent"), ("target", TARGET), ("ask", "%%agent\ndouble it")]
    )
    open_notebook(page, lab, NAME)
    run_cell(page, 0)
    wait_cell_done(page, 0)

    box.set(edit_script("total = sum([1, 2]) * 2", "Doubled it."), server)
    run_cell(page, 2)
    pending = page.locator(".jp-agent-pending[data-cell-id='target']")
    pending.wait_for(timeout=60_000)
    allow, deny = (
        pending.locator("button.jp-agent-pending-allow"),
        pending.locator("button.jp-agent-pending-deny"),
    )
    assert set(allow.get_attribute("class").split()) >= {"jp-Button", "jp-mod-styled", "jp-mod-accept"}
    assert set(deny.get_attribute("class").split()) >= {"jp-Button", "jp-mod-styled", "jp-mod-reject"}
    for button in (allow, deny):
        assert button.evaluate(CONTRAST_JS) >= 4.5
    press_in_target(page, "Control+Enter")
    output = agent_output(page)
    output.locator("text=Doubled it.").wait_for(timeout=60_000)
    wait_cell_done(page, 2)
    assert live_sources(page, NAME)[:2] == ["%load_ext jupyter_agent", "total = sum([1, 2]) * 2"]
    assert (
        execution_counts(page, NAME)[1] is None
    )  # Ctrl+Enter answered the question; it did not run the cell
    assert "allowed once" in (output.text_content() or "")
    assert pending.count() == 0

    box.set(edit_script("total = 0", "Left it."), server)
    run_cell(page, 2)
    press_in_target(page, "Control+Backspace")
    output.locator("text=Left it.").wait_for(timeout=60_000)
    wait_cell_done(page, 2)
    assert live_sources(page, NAME)[1] == "total = sum([1, 2]) * 2"  # denied, and no word deleted
    assert "denied" in (output.text_content() or "")
    assert "STALE_READ" not in (output.text_content() or "")
    assert execution_counts(page, NAME)[1] is None
