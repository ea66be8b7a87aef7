"""Cell actions and notebook hygiene in JupyterLab and Notebook 7 + Chromium.

"Ask the agent about this cell" on two selected cells (the cell toolbar in JupyterLab, the cell's context menu
in Notebook 7) inserts a `%%agent` cell below them with both references and the cursor ready; running it sends
both cells with the request. Shift+Q in command mode does the same for the active cell. "Fix this cell with the
agent" on a cell whose last run raised sends that cell's error, not the last one.

NotebookEdit's move and clear_outputs change the live notebook: Ctrl+Z brings the outputs back, and
`%agent undo` restores the order and the outputs.
"""

from __future__ import annotations

from typing import Any

import pytest
from lab import (
    Lab,
    ScriptBox,
    agent_output,
    cell_output,
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


def cell(page: Any, index: int) -> Any:
    return page.locator(".jp-Notebook .jp-Cell").nth(index)


def command_mode(page: Any) -> None:
    page.keyboard.press("Escape")


def request_text(request: dict[str, Any]) -> str:
    content = request["messages"][-1]["content"]
    return "\n".join(block.get("text", "") for block in content if block.get("type") == "text")


@pytest.mark.parametrize("frontend", ["lab", "notebook7"])
def test_ask_the_agent_about_two_selected_cells_sends_both(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox], frontend: str
) -> None:
    server, box = model_server
    box.set([Turn(blocks=[Text("Both set a **variable**.")])], server)
    name = f"ask-cells-{frontend}.ipynb"
    notebook_with_ids(
        lab,
        name,
        [
            ("load", "%load_ext jupyter_agent"),
            ("first", "x = 1"),
            ("second", "y = 2"),
            ("last", "print('after')"),
        ],
    )
    (open_notebook if frontend == "lab" else open_notebook_7)(page, lab, name)
    run_cell(page, 0)
    wait_cell_done(page, 0)
    cell(page, 1).locator(".jp-InputPrompt").click()  # command mode, cell 1 active
    cell(page, 2).locator(".jp-InputPrompt").click(modifiers=["Shift"])  # and cell 2 selected
    wait_for(
        lambda: page.locator(".jp-Notebook .jp-Cell.jp-mod-selected").count() == 2, 10, "two cells selected"
    )
    if frontend == "lab":
        button = cell(page, 2).locator(".jp-cell-toolbar [data-command='jupyter-agent:ask-about-cell']")
        button.click()
    else:
        cell(page, 2).locator(".jp-InputPrompt").click(button="right")
        page.locator(".lm-Menu-itemLabel:text-is('Ask the agent about this cell')").click()
    wait_for(lambda: len(live_sources(page, name)) == 5, 15, "the new %%agent cell")
    sources = live_sources(page, name)
    assert sources[3] == "%%agent\n@cell:first @cell:second "  # right below the selection
    assert sources[4] == "print('after')"
    page.keyboard.type("what do these do?")  # the cursor waits after the references
    assert live_sources(page, name)[3] == "%%agent\n@cell:first @cell:second what do these do?"
    sent_before = len(server.requests)
    page.keyboard.press("Shift+Enter")
    cell_output(page, 3).locator("text=Both set a").wait_for(timeout=60_000)
    wait_cell_done(page, 3)
    text = request_text(server.requests[sent_before])
    assert "@cell:first @cell:second what do these do?" in text
    assert '<reference to="@cell:first">' in text and '<reference to="@cell:second">' in text
    assert "x = 1" in text and "y = 2" in text and "print('after')" not in text
    assert cell_output(page, 4).inner_text().strip() == ""  # nothing else ran

    # Shift+Q in command mode: the same for the active cell.
    cell(page, 4).locator(".jp-InputPrompt").click()
    page.keyboard.press("Shift+Q")
    wait_for(lambda: len(live_sources(page, name)) == 6, 15, "Shift+Q's %%agent cell")
    assert live_sources(page, name)[5] == "%%agent\n@cell:last "


def test_fix_this_cell_sends_that_cells_error_not_the_last_one(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    box.set([Turn(blocks=[Text("The key 'March' is **missing**.")])], server)
    name = "fix-cell.ipynb"
    notebook_with_ids(
        lab,
        name,
        [
            ("load", "%load_ext jupyter_agent"),
            ("sales", "sales = {'Jan': 1}\nsales['March']"),
            ("other", "1 / 0"),
        ],
    )
    open_notebook(page, lab, name)
    for index in range(3):
        run_cell(page, index)
        wait_cell_done(page, index)
    cell(page, 1).locator(".jp-InputPrompt").click(button="right")
    page.locator(".lm-Menu-itemLabel:text-is('Fix this cell with the agent')").click()
    wait_for(lambda: "%agent fix sales" in live_sources(page, name), 15, "the fix cell")
    assert live_sources(page, name)[2] == "%agent fix sales"  # right below the cell, run at once
    sent_before = len(server.requests)
    cell_output(page, 2).locator("text=is missing").wait_for(timeout=60_000)
    text = request_text(server.requests[sent_before])
    assert "(cell id sales):" in text and "KeyError: 'March'" in text
    assert "(cell id other):" not in text
    command_mode(page)
    cell(page, 0).locator(".jp-InputPrompt").click(button="right")  # a cell that did not raise: no item
    page.locator(".lm-Menu-itemLabel:text-is('Ask the agent about this cell')").wait_for()
    assert not page.locator(".lm-Menu-itemLabel:text-is('Fix this cell with the agent')").is_visible()
    page.keyboard.press("Escape")


@pytest.mark.parametrize("frontend", ["lab", "notebook7"])
def test_move_and_clear_outputs_live_then_ctrl_z_and_agent_undo_put_them_back(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox], frontend: str
) -> None:
    server, box = model_server
    box.set(
        [
            Turn(blocks=[ToolUse(name="NotebookRead", input={})]),
            Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "c", "edit_mode": "move", "after_cell_id": "load"})]),
            Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "a", "clear_outputs": True})]),
            Turn(blocks=[Text("Moved C up and cleared A's output.")]),
        ],
        server,
    )  # fmt: skip
    name = f"tidy-{frontend}.ipynb"
    notebook_with_ids(
        lab,
        name,
        [
            ("load", "%load_ext jupyter_agent"),
            ("a", "print('A')"),
            ("b", "print('B')"),
            ("c", "print('C')"),
            ("ask", "%%agent --mode acceptEdits\ntidy up"),
            ("undo", "%agent undo"),
        ],
    )
    (open_notebook if frontend == "lab" else open_notebook_7)(page, lab, name)
    for index in range(4):
        run_cell(page, index)
        wait_cell_done(page, index)
    run_cell(page, 4)
    agent_output(page).locator("text=cleared A's output").wait_for(timeout=60_000)
    wait_cell_done_by_id(page, name, "ask")
    assert ids(page, name) == ["load", "c", "a", "b", "ask", "undo"]
    assert outputs(page, name, "c") == (["C\n"], 4)  # moved with its outputs
    assert outputs(page, name, "a") == ([], None)
    assert outputs(page, name, "b") == (["B\n"], 3)

    command_mode(page)
    page.locator(".jp-Notebook").first.focus()
    command_mode(page)
    page.keyboard.press("Control+z")  # the notebook's undo: the clear was one undoable change
    wait_for(lambda: outputs(page, name, "a") == (["A\n"], 2), 10, "Ctrl+Z to bring A's output back")
    assert ids(page, name) == ["load", "c", "a", "b", "ask", "undo"]

    run_cell(page, 5)  # %agent undo
    wait_for(lambda: ids(page, name)[:4] == ["load", "a", "b", "c"], 60, "%agent undo to restore the order")
    wait_cell_done_by_id(page, name, "undo")
    assert [outputs(page, name, cell_id) for cell_id in ("a", "b", "c")] == [
        (["A\n"], 2),
        (["B\n"], 3),
        (["C\n"], 4),
    ]
    assert "moved cell c back" in (cell_output(page, 5).text_content() or "")


def ids(page: Any, name: str) -> list[str]:
    return page.evaluate(panel_js(name, "return panel.content.model.sharedModel.cells.map(c => c.getId());"))


def outputs(page: Any, name: str, cell_id: str) -> tuple[list[str], int | None]:
    found = page.evaluate(
        panel_js(
            name,
            f"const c = panel.content.model.sharedModel.cells.find(c => c.getId() === {cell_id!r});"
            " return [c.outputs.map(o => Array.isArray(o.text) ? o.text.join('') : (o.text || '')),"
            " c.execution_count];",
        )
    )
    return found[0], found[1]


def wait_cell_done_by_id(page: Any, name: str, cell_id: str) -> None:
    """The cell has an execution count and is not running (found by id: cells move in these tests)."""
    page.wait_for_function(
        panel_js(
            name,
            f"const i = panel.content.model.sharedModel.cells.findIndex(c => c.getId() === {cell_id!r});"
            " const w = panel.content.widgets[i];"
            " return w.model.executionCount != null && w.model.executionState !== 'running';",
        ),
        timeout=60_000,
    )
