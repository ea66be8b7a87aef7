"""NotebookEdit's `edit_mode: "move"` and `clear_outputs: true`, through the real dispatcher on both backends
(the live one answered by `FakePage`, which applies ops with the Python engine): the cell keeps its id and
outputs when moved, loses only its outputs when cleared, and `%agent undo` puts back the order and the outputs.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from dispatch_harness import Approvals, ToolHarness
from notebook_testkit import World, assert_valid

from jupyter_agent.base.journal import CellChange
from jupyter_agent.builtin_tools.kernel import InlineMainThread
from jupyter_agent.builtin_tools.notebook import notebook_tools
from jupyter_agent.tools import Approval, ApprovalRequest, Approve, Reject
from jupyter_agent.tools.core import PendingCell
from jupyter_agent.tools.dispatch import Dispatched
from jupyter_agent.undo.cells import undo_cell_change
from jupyter_agent.undo.run import undo_run


@pytest.fixture(params=["file", "live"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    world = World(tmp_path, request.param)
    yield world
    world.close()


def call(world: World, tool_input: dict[str, Any], *, meanwhile: Any = None) -> Dispatched:
    async def approve(_request: ApprovalRequest) -> Approval:
        if meanwhile is not None:
            meanwhile()
        return Approve()

    return ToolHarness(world.ctx, notebook_tools(), approver=approve).dispatch("NotebookEdit", tool_input)


def read(world: World) -> None:
    ToolHarness(world.ctx, notebook_tools()).dispatch("NotebookRead", {})


def cells(world: World) -> list[dict[str, Any]]:
    if world.page is not None:
        return [dict(c) for c in world.page.cells]
    return [dict(c) for c in nbformat.read(world.path, as_version=4).cells]


def outputs(world: World, cell_id: str) -> tuple[list[str], int | None]:
    cell = next(c for c in cells(world) if c["id"] == cell_id)
    return ["".join(o.get("text", "")) for o in cell["outputs"]], cell["execution_count"]


def order(world: World) -> list[str]:
    return [c["id"] for c in cells(world)]


def test_move_puts_the_cell_after_another_with_its_id_and_outputs_and_needs_no_read(world: World) -> None:
    done = call(world, {"cell_id": "c2", "edit_mode": "move", "after_cell_id": "c0"})
    assert not done.result.is_error, done.result.content
    assert done.result.content == (  # the same words for the page and the file: the tool's text says which
        "Moved code cell 'c2' right after cell 'c0' in analysis.ipynb (now position 2); its id, source and "
        "outputs are unchanged."
    )
    assert done.result.summary == "Moved cell 3 ('x = 2') of analysis.ipynb"
    assert order(world) == ["c0", "c2", "c1", "md"]
    assert outputs(world, "c2") == (["2\n"], 3)
    (change,) = world.ctx.journal.changes
    assert isinstance(change, CellChange) and change.op == "move"
    assert change.inverse["ops"] == [
        {"op": "move", "id": "c2", "after_id": "c1", "expect": "x = 2\nprint(x)"}
    ]
    if world.page is None:
        assert_valid(world.path)


def test_move_to_the_top_is_asked_for_with_an_empty_after_cell_id(world: World) -> None:
    done = call(world, {"cell_id": "md", "edit_mode": "move", "after_cell_id": ""})
    assert not done.result.is_error, done.result.content
    assert order(world) == ["md", "c0", "c1", "c2"]
    assert "to the top" in done.result.content and "(now position 1)" in done.result.content


@pytest.mark.parametrize("after", [{}, {"after_cell_id": None}])
def test_move_without_after_cell_id_is_refused_not_moved_to_the_top(
    world: World, after: dict[str, Any]
) -> None:
    done = call(world, {"cell_id": "md", "edit_mode": "move", **after})
    assert done.result.content == (
        "INVALID_ARGS: edit_mode 'move' needs after_cell_id: the id of the cell it should follow, or \"\" to move "
        "it to the top"
    )
    assert order(world) == ["c0", "c1", "c2", "md"] and world.ctx.journal.changes == []


def test_the_move_preview_is_the_outline_before_and_after(world: World) -> None:
    person = Approvals(then=Reject())
    ToolHarness(world.ctx, notebook_tools(), approver=person).dispatch(
        "NotebookEdit", {"cell_id": "c0", "edit_mode": "move", "after_cell_id": "c2"}
    )
    asked = person.requests
    assert asked[0].title == "NotebookEdit analysis.ipynb move c0"
    assert asked[0].preview.text == (
        "--- a/analysis.ipynb#c0\n+++ b/analysis.ipynb#c0\n@@ -1,4 +1,4 @@\n"
        "-[code] c0: x = 0\n [code] c1: x = 1\n [code] c2: x = 2\n+[code] c0: x = 0\n [markdown] md: # Notes\n"
    )
    assert order(world) == ["c0", "c1", "c2", "md"]  # denied: nothing moved


def test_a_move_that_changes_nothing_or_names_the_cell_itself_is_refused(world: World) -> None:
    same = call(world, {"cell_id": "c1", "edit_mode": "move", "after_cell_id": "c0"})
    assert same.result.content == "NO_CHANGE: cell 'c1' is already right after cell 'c0'; nothing to move"
    itself = call(world, {"cell_id": "c1", "edit_mode": "move", "after_cell_id": "c1"})
    assert itself.result.content == (
        "INVALID_ARGS: after_cell_id is the cell itself ('c1'); name the cell it should follow, or pass \"\" "
        "to move it to the top"
    )
    missing = call(world, {"cell_id": "c1", "edit_mode": "move", "after_cell_id": "zz"})
    assert missing.result.error_code == "CELL_NOT_FOUND"
    assert order(world) == ["c0", "c1", "c2", "md"] and world.ctx.journal.changes == []


def test_a_move_keeps_what_the_user_typed_while_it_was_pending(world: World) -> None:
    """A move changes no text, so what the user typed is moved with the cell (the page refuses a pending edit
    the user types into before anyone answers; that is the labextension's test)."""
    done = call(
        world,
        {"cell_id": "c0", "edit_mode": "move", "after_cell_id": "c2"},
        meanwhile=lambda: world.type_into("c0", "x = 0  # typed while pending"),
    )
    assert not done.result.is_error, done.result.content
    assert order(world) == ["c1", "c2", "c0", "md"]
    assert world.sources()["c0"] == "x = 0  # typed while pending"


def test_clear_outputs_empties_the_outputs_and_count_and_keeps_the_source(world: World) -> None:
    read(world)
    done = call(world, {"cell_id": "c1", "clear_outputs": True})
    assert not done.result.is_error, done.result.content
    assert done.result.content.startswith(
        "Cleared the outputs of cell 'c1' in analysis.ipynb (1 output and the execution count); its source is "
        "unchanged."
    )
    assert done.result.diff == (
        "--- a/analysis.ipynb#c1 (outputs)\n+++ b/analysis.ipynb#c1 (outputs)\n@@ -1,2 +0,0 @@\n-[2]\n-1\n"
    )
    assert outputs(world, "c1") == ([], None)
    assert world.sources()["c1"] == "x = 1\nprint(x)"
    assert outputs(world, "c0") == (["0\n"], 1)  # the others keep theirs
    (change,) = world.ctx.journal.changes
    assert isinstance(change, CellChange) and change.op == "clear_outputs"
    step = asyncio.run(undo_cell_change(change, world.ctx))
    assert step.done and step.text == "put back the outputs of cell c1 in analysis.ipynb"
    assert outputs(world, "c1") == (["1\n"], 2)


def test_clearing_a_cell_not_read_is_refused(world: World) -> None:
    done = call(world, {"cell_id": "c1", "clear_outputs": True})
    assert done.result.error_code == "NOT_READ"
    assert outputs(world, "c1") == (["1\n"], 2)


def test_a_new_source_and_cleared_outputs_are_one_change_and_one_undo(world: World) -> None:
    read(world)
    done = call(world, {"cell_id": "c0", "new_source": "x = 10\nprint(x)", "clear_outputs": True})
    assert done.result.content.startswith(
        "Edited cell 'c0' in analysis.ipynb (+1 −3). Its outputs and execution count were cleared."
    )
    assert world.sources()["c0"] == "x = 10\nprint(x)" and outputs(world, "c0") == ([], None)
    (change,) = world.ctx.journal.changes
    assert isinstance(change, CellChange) and change.op == "replace"
    assert asyncio.run(undo_cell_change(change, world.ctx)).done
    assert world.sources()["c0"] == "x = 0\nprint(x)" and outputs(world, "c0") == (["0\n"], 1)


@pytest.mark.parametrize(
    ("tool_input", "message"),
    [
        (
            {"cell_id": "md", "clear_outputs": True},
            "INVALID_ARGS: cell 'md' is a markdown cell; only code cells have outputs",
        ),
        (
            {"cell_id": "c0", "new_source": "", "clear_outputs": True},
            "INVALID_ARGS: new_source '' with clear_outputs would also empty the source of cell 'c0'; omit "
            "new_source to only clear its outputs (to empty the cell, replace it without clear_outputs)",
        ),
        (
            {"cell_id": "c0", "edit_mode": "delete", "clear_outputs": True},
            "INVALID_ARGS: clear_outputs does not apply to edit_mode 'delete' (it is for replace); delete takes "
            "only cell_id",
        ),
        (
            {"cell_id": "c0"},
            "INVALID_ARGS: edit_mode 'replace' needs new_source (the cell's whole new source), old_string and "
            "new_string (the part to change), or clear_outputs true to only clear its outputs",
        ),
        (
            {"edit_mode": "insert", "cell_type": "code"},
            "INVALID_ARGS: edit_mode 'insert' needs new_source (the new cell's source)",
        ),
    ],
)
def test_what_cannot_be_cleared_or_is_missing_says_the_fix(
    world: World, tool_input: dict[str, Any], message: str
) -> None:
    read(world)
    assert call(world, tool_input).result.content == message
    assert world.ctx.journal.changes == []


def test_clearing_a_cell_without_outputs_is_no_change(world: World) -> None:
    read(world)
    assert not call(world, {"cell_id": "c1", "clear_outputs": True}).result.is_error
    again = call(world, {"cell_id": "c1", "clear_outputs": True})
    assert again.result.content == "NO_CHANGE: cell 'c1' has no outputs to clear; nothing to do"


def test_agent_undo_restores_the_order_and_the_outputs(world: World) -> None:
    read(world)
    call(world, {"cell_id": "c0", "edit_mode": "move", "after_cell_id": "c2"})
    call(world, {"cell_id": "c2", "clear_outputs": True})
    call(world, {"cell_id": "md", "edit_mode": "move", "after_cell_id": ""})
    assert order(world) == ["md", "c1", "c2", "c0"]
    assert outputs(world, "c2") == ([], None)
    text = asyncio.run(undo_run(world.ctx.journal, world.ctx))
    assert order(world) == ["c0", "c1", "c2", "md"], text
    assert [outputs(world, cell_id) for cell_id in ("c0", "c1", "c2")] == [
        (["0\n"], 1),
        (["1\n"], 2),
        (["2\n"], 3),
    ]
    assert "moved cell md back in analysis.ipynb" in text
    assert "put back the outputs of cell c2 in analysis.ipynb" in text
    if world.page is None:
        assert_valid(world.path)


def test_the_approval_names_the_cells_of_a_live_page_and_none_of_a_file(world: World) -> None:
    """What the page draws at the cells while the call waits (`Preview.cells`); a file has no page to draw it."""
    read(world)
    person = Approvals(then=Reject())
    world.ctx.services = dataclasses.replace(world.ctx.services, main_thread=InlineMainThread())
    harness = ToolHarness(world.ctx, notebook_tools(), approver=person)
    harness.dispatch(
        "NotebookEdit", {"cell_id": "c1", "new_source": "x = 10\nprint(x)", "clear_outputs": True}
    )
    harness.dispatch("NotebookEdit", {"cell_id": "md", "edit_mode": "move", "after_cell_id": "c0"})
    harness.dispatch(
        "NotebookEdit", {"edit_mode": "insert", "cell_type": "code", "new_source": "y = 1", "cell_id": "c2"}
    )
    harness.dispatch("RunCell", {"cell_id": "c1", "range": "below"})
    asked = person.requests
    assert [r.tool for r in asked] == ["NotebookEdit", "NotebookEdit", "NotebookEdit", "RunCell"]
    if world.page is None:
        assert all(r.preview.cells == () for r in asked)
        return
    path = str(world.path)
    assert [r.preview.cells for r in asked] == [
        (
            PendingCell(
                notebook=path,
                change="replace",
                cell_id="c1",
                before="x = 1\nprint(x)",
                after="x = 10\nprint(x)",
                clears_outputs=True,
            ),
        ),
        (
            PendingCell(
                notebook=path,
                change="move",
                cell_id="md",
                before="# Notes\nsome text",
                after="# Notes\nsome text",
                cell_type="markdown",
                after_id="c0",
            ),
        ),
        (PendingCell(notebook=path, change="insert", cell_id="", after="y = 1", after_id="c2"),),
        (
            PendingCell(notebook=path, change="run", cell_id="c1", before="x = 1\nprint(x)"),
            PendingCell(notebook=path, change="run", cell_id="c2", before="x = 2\nprint(x)"),
        ),
    ]
