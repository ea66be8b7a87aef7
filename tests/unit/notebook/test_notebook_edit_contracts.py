"""NotebookEdit's contract as the model is told it (issue #42): `after_cell_id` places an insert as it places a
move, a parameter the mode does not take is refused (never ignored), and `old_string` / `new_string` change
only that text of a cell with Edit's matching and errors. Through the real dispatcher, on both backends."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import ToolHarness
from notebook_testkit import World

from jupyter_agent.base.journal import CellChange
from jupyter_agent.builtin_tools.notebook import notebook_tools
from jupyter_agent.tools import Approval, ApprovalRequest, Approve
from jupyter_agent.tools.dispatch import Dispatched
from jupyter_agent.tools.scope import RunScope
from jupyter_agent.undo.cells import undo_cell_change

ORIGINAL = {
    "c0": "x = 0\nprint(x)",
    "c1": "x = 1\nprint(x)",
    "c2": "x = 2\nprint(x)",
    "md": "# Notes\nsome text",
}


@pytest.fixture(params=["file", "live"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    world = World(tmp_path, request.param)
    yield world
    world.close()


async def approve(_request: ApprovalRequest) -> Approval:
    return Approve()


def call(world: World, tool_input: dict[str, Any], name: str = "NotebookEdit") -> Dispatched:
    return ToolHarness(world.ctx, notebook_tools(), approver=approve).dispatch(name, tool_input)


def read(world: World) -> None:
    assert not call(world, {}, "NotebookRead").result.is_error


def unchanged(world: World) -> bool:
    """The notebook holds what it held (the file byte-identical too) and nothing was journaled."""
    return (
        world.sources() == ORIGINAL
        and world.path.read_bytes() == world.disk
        and not world.ctx.journal.changes
    )


def test_insert_goes_after_after_cell_id_not_below_the_running_cell(world: World) -> None:
    world.ctx = world.ctx.for_run(RunScope(running_cell_id="md"))
    done = call(
        world, {"edit_mode": "insert", "after_cell_id": "c0", "cell_type": "code", "new_source": "y = 1"}
    )
    assert not done.result.is_error, done.result.content
    new_id = done.result.data["cell_id"]
    assert list(world.sources()) == ["c0", new_id, "c1", "c2", "md"]
    assert done.result.content.startswith(
        f"Inserted code cell '{new_id}' after cell 'c0' in analysis.ipynb (position 2)."
    )


def test_insert_with_an_empty_after_cell_id_goes_to_the_top_even_with_a_running_cell(world: World) -> None:
    world.ctx = world.ctx.for_run(RunScope(running_cell_id="c1"))
    done = call(
        world, {"edit_mode": "insert", "after_cell_id": "", "cell_type": "markdown", "new_source": "# Top"}
    )
    assert not done.result.is_error, done.result.content
    assert next(iter(world.sources())) == done.result.data["cell_id"]
    assert "at the top" in done.result.content


def test_insert_with_two_different_anchors_is_refused(world: World) -> None:
    done = call(
        world,
        {
            "edit_mode": "insert",
            "cell_id": "c0",
            "after_cell_id": "c2",
            "cell_type": "code",
            "new_source": "y",
        },
    )
    assert done.result.content == (
        "INVALID_ARGS: insert got two anchors, cell_id 'c0' and after_cell_id 'c2'; pass only after_cell_id, "
        "the cell the new one goes after"
    )
    assert unchanged(world)


@pytest.mark.parametrize(
    ("tool_input", "message"),
    [
        (
            {"cell_id": "c0", "new_source": "x = 9", "after_cell_id": "c2"},
            "after_cell_id does not apply to edit_mode 'replace' (it is for insert and move); the cell replace "
            "changes is cell_id; to put a new cell after it use edit_mode 'insert'",
        ),
        (
            {"edit_mode": "move", "cell_id": "c0", "after_cell_id": "c2", "new_source": "x = 9"},
            "new_source does not apply to edit_mode 'move' (it is for replace and insert); a move keeps the "
            "cell's source; change it with a separate replace",
        ),
        (
            {"edit_mode": "move", "cell_id": "c0", "after_cell_id": "c2", "cell_type": "markdown"},
            "cell_type does not apply to edit_mode 'move' (it is for replace and insert); a move keeps the "
            "cell's type; change it with edit_mode 'replace' and cell_type",
        ),
        (
            {"edit_mode": "delete", "cell_id": "c0", "after_cell_id": "c2"},
            "after_cell_id does not apply to edit_mode 'delete' (it is for insert and move); delete takes only "
            "cell_id",
        ),
        (
            {"edit_mode": "delete", "cell_id": "c0", "new_source": "x = 9"},
            "new_source does not apply to edit_mode 'delete' (it is for replace and insert); delete takes only "
            "cell_id",
        ),
        (
            {
                "edit_mode": "insert",
                "cell_type": "code",
                "new_source": "y",
                "old_string": "x",
                "new_string": "y",
            },
            "old_string does not apply to edit_mode 'insert' (it is for replace); insert takes new_source, "
            "cell_type and after_cell_id",
        ),
        (
            {"edit_mode": "insert", "cell_type": "code", "new_source": "y", "replace_all": True},
            "replace_all does not apply to edit_mode 'insert' (it is for replace); insert takes new_source, "
            "cell_type and after_cell_id",
        ),
        (
            {"cell_id": "c0", "new_source": "x = 9", "old_string": "x", "new_string": "y"},
            "pass either new_source (the cell's whole new source) or old_string and new_string (the part to "
            "change), not both",
        ),
        (
            {"cell_id": "c0", "old_string": "x = 0"},
            "old_string and new_string go together; new_string is missing",
        ),
        (
            {"cell_id": "c0", "new_source": "x = 9", "replace_all": True},
            "replace_all goes with old_string and new_string (it has no effect on new_source)",
        ),
        (
            {"cell_id": "c0", "old_string": "", "new_string": "y"},
            "old_string is empty; pass the exact text in the cell to change, or new_source to replace the whole "
            "cell",
        ),
    ],
)
def test_a_parameter_the_mode_does_not_take_is_refused_naming_the_one_it_does(
    world: World, tool_input: dict[str, Any], message: str
) -> None:
    read(world)
    assert call(world, tool_input).result.content == f"INVALID_ARGS: {message}"
    assert unchanged(world)


def test_a_delete_with_the_empty_new_source_claude_code_sends_still_deletes(world: World) -> None:
    read(world)
    done = call(world, {"edit_mode": "delete", "cell_id": "c1", "new_source": ""})
    assert not done.result.is_error, done.result.content
    assert list(world.sources()) == ["c0", "c2", "md"]


def test_old_string_changes_only_that_text_and_echoes_the_lines(world: World) -> None:
    read(world)
    done = call(world, {"cell_id": "c1", "old_string": "x = 1", "new_string": "x = 10  # tuned"})
    assert not done.result.is_error, done.result.content
    assert world.sources() == {**ORIGINAL, "c1": "x = 10  # tuned\nprint(x)"}
    assert done.result.content == (
        "Edited cell 'c1' in analysis.ipynb (+1 −1). The changed lines now read:\n"
        "     1\tx = 10  # tuned\n     2\tprint(x)"
    )


def test_the_diff_and_undo_of_an_in_cell_edit_are_those_of_a_whole_cell_replace(
    world: World, tmp_path: Path
) -> None:
    read(world)
    part = call(world, {"cell_id": "c2", "old_string": "print(x)", "new_string": "print(x * 2)"}).result
    (tmp_path / "other").mkdir()
    other = World(tmp_path / "other", world.backend)
    try:
        read(other)
        whole = call(other, {"cell_id": "c2", "new_source": "x = 2\nprint(x * 2)"}).result
    finally:
        other.close()
    assert (
        part.diff == whole.diff
        and part.summary == whole.summary == "Edited cell 3 ('x = 2') of analysis.ipynb (+1 −1)"
    )
    (change,) = world.ctx.journal.changes
    assert isinstance(change, CellChange) and change.op == "replace"
    assert asyncio.run(undo_cell_change(change, world.ctx)).done
    assert world.sources() == ORIGINAL


def test_old_string_not_in_the_cell_is_text_not_found_with_the_closest_line(world: World) -> None:
    read(world)
    done = call(world, {"cell_id": "c1", "old_string": "print(y)", "new_string": "print(z)"})
    assert done.result.error_code == "TEXT_NOT_FOUND"
    assert done.result.content == (
        "TEXT_NOT_FOUND: old_string was not found in 'analysis.ipynb#c1'. It must match the cell exactly, "
        "including whitespace and indentation. The closest text is at line 2:\n     2\tprint(x)\n"
        "Copy old_string from the cell exactly (NotebookRead it again if it may have changed)."
    )
    assert unchanged(world)


def test_old_string_found_twice_is_multiple_matches_unless_replace_all(world: World) -> None:
    read(world)
    twice = call(world, {"cell_id": "c0", "old_string": "x", "new_string": "count"})
    assert twice.result.content == (
        "TEXT_MULTIPLE_MATCHES: old_string appears 2 times in 'analysis.ipynb#c0' (at lines 1, 2); add "
        "surrounding lines to old_string to make it unique, or set replace_all to change every one"
    )
    assert unchanged(world)
    every = call(world, {"cell_id": "c0", "old_string": "x", "new_string": "count", "replace_all": True})
    assert not every.result.is_error, every.result.content
    assert "Replaced 2 occurrences (they were at lines 1, 2)." in every.result.content
    assert world.sources() == {**ORIGINAL, "c0": "count = 0\nprint(count)"}


@pytest.mark.parametrize(
    ("name", "tool_input"),
    [
        ("NotebookEdit", {"cell_id": "3", "new_source": "x = 9"}),
        (
            "NotebookEdit",
            {"edit_mode": "insert", "after_cell_id": "3", "cell_type": "code", "new_source": "y"},
        ),
        ("NotebookRead", {"cell_id": "3"}),
        ("NotebookRead", {"cell_ids": ["c0", "#3"]}),
        ("RunCell", {"cell_id": "3"}),
    ],
)
def test_a_cell_id_that_is_a_position_names_the_cell_at_that_position(
    world: World, name: str, tool_input: dict[str, Any]
) -> None:
    asked = str(tool_input.get("cell_id") or tool_input.get("after_cell_id") or "#3")
    done = call(world, tool_input, name)
    assert done.result.content == (
        f"CELL_NOT_FOUND: no cell with id '{asked}' in analysis.ipynb; cells are addressed by id, not position: "
        "position 3 is cell 'c2' (a code cell); pass cell_id 'c2' if that is the one"
    )
    assert unchanged(world)


def test_an_id_that_is_no_position_either_points_to_notebook_read(world: World) -> None:
    done = call(world, {"cell_id": "9", "new_source": "x"})
    assert done.result.content == (
        "CELL_NOT_FOUND: no cell with id '9' in analysis.ipynb; call NotebookRead for the current ids"
    )


def test_a_cell_never_read_is_not_read_and_one_changed_since_is_stale_read(world: World) -> None:
    never = call(world, {"cell_id": "c1", "old_string": "x = 1", "new_string": "x = 2"})
    assert never.result.error_code == "NOT_READ"
    read(world)
    world.type_into("c1", "x = 1  # mine\nprint(x)")
    changed = call(world, {"cell_id": "c1", "old_string": "x = 1", "new_string": "x = 2"})
    assert changed.result.error_code == "STALE_READ"
    assert world.sources()["c1"] == "x = 1  # mine\nprint(x)"
