"""NotebookEdit through the real dispatcher, on both backends: read-before-write, the atomic stale check while
the approval is pending, diffs, journal and undo. The live backend talks to `FakePage` (the extension is
TypeScript; see notebook_testkit)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import ToolHarness
from notebook_testkit import World, assert_valid

from jupyter_agent.base.journal import CellChange
from jupyter_agent.builtin_tools.notebook import notebook_tools
from jupyter_agent.tools import (
    Approval,
    ApprovalRequest,
    Approve,
)
from jupyter_agent.tools.dispatch import Dispatched
from jupyter_agent.undo.cells import undo_cell_change


@pytest.fixture(params=["file", "live"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    world = World(tmp_path, request.param)
    yield world
    world.close()


class Approver:
    """Approves every call; `meanwhile` runs while the question is shown (the user acting during approval)."""

    def __init__(self, meanwhile: Callable[[], None] | None = None) -> None:
        self.meanwhile = meanwhile
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self.requests.append(request)
        if self.meanwhile is not None:
            self.meanwhile()
        return Approve()


def call(world: World, name: str, tool_input: dict[str, Any], approver: Approver | None = None) -> Dispatched:
    return ToolHarness(world.ctx, notebook_tools(), approver=approver or Approver()).dispatch(
        name, tool_input
    )


def read(world: World, cell_id: str | None = None) -> Dispatched:
    return call(world, "NotebookRead", {"cell_id": cell_id} if cell_id else {})


def test_replacing_a_cell_not_read_is_refused(world: World) -> None:
    done = call(world, "NotebookEdit", {"cell_id": "c1", "new_source": "x = 100"})
    assert done.result.content == (
        "NOT_READ: cell 'c1' of analysis.ipynb has not been read in this conversation; "
        "call NotebookRead with cell_id='c1' first"
    )
    assert world.sources()["c1"] == "x = 1\nprint(x)"


def test_replace_after_a_read_shows_a_diff_and_updates_the_cell(world: World) -> None:
    read(world)
    approver = Approver()
    done = call(world, "NotebookEdit", {"cell_id": "c1", "new_source": "x = 100\nprint(x)"}, approver)
    result = done.result
    assert not result.is_error, result.content
    assert (
        result.summary == "Edited cell 2 ('x = 100') of analysis.ipynb (+1 −1)"
    )  # by position and first line
    assert result.content == "Edited cell 'c1' in analysis.ipynb (+1 −1)."  # page or file: the same words
    assert result.data["cell_id"] == "c1"
    assert approver.requests[0].preview.text == result.diff
    assert result.diff == (
        "--- a/analysis.ipynb#c1\n+++ b/analysis.ipynb#c1\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 100\n"
        " print(x)\n\\ No newline at end of file\n"
    )
    assert world.sources()["c1"] == "x = 100\nprint(x)"
    assert approver.requests[0].title == "NotebookEdit analysis.ipynb replace c1"


def test_the_agent_may_edit_its_own_edit_again_without_rereading(world: World) -> None:
    read(world, "c1")
    call(world, "NotebookEdit", {"cell_id": "c1", "new_source": "x = 2"})
    again = call(world, "NotebookEdit", {"cell_id": "c1", "new_source": "x = 3"})
    assert not again.result.is_error, again.result.content
    assert world.sources()["c1"] == "x = 3"


def test_a_cell_the_user_changed_after_the_read_is_stale(world: World) -> None:
    read(world)
    world.type_into("c1", "x = 1  # mine")
    done = call(world, "NotebookEdit", {"cell_id": "c1", "new_source": "x = 5"})
    assert done.result.error_code == "STALE_READ"
    assert done.result.content.startswith(
        "STALE_READ: cell 'c1' of analysis.ipynb changed since it was last read"
    )
    assert world.sources()["c1"] == "x = 1  # mine"


def test_typing_while_the_approval_is_pending_keeps_the_users_text(world: World) -> None:
    read(world)
    approver = Approver(meanwhile=lambda: world.type_into("c1", "x = 1  # typed during approval"))
    done = call(world, "NotebookEdit", {"cell_id": "c1", "new_source": "x = 5"}, approver)
    assert done.result.error_code == "STALE_READ"
    assert done.result.content == (
        "STALE_READ: cell 'c1' of analysis.ipynb changed since it was last read (the user or another program "
        "edited it); call NotebookRead with cell_id='c1' again and redo the change on the current content"
    )
    assert world.sources()["c1"] == "x = 1  # typed during approval"
    assert world.ctx.journal.changes == []


def test_insert_at_the_top_needs_no_read_and_names_the_new_cell(world: World) -> None:
    done = call(
        world,
        "NotebookEdit",
        {"new_source": "import pandas as pd", "cell_type": "code", "edit_mode": "insert"},
    )
    new_id = done.result.data["cell_id"]
    assert done.result.content.startswith(
        f"Inserted code cell '{new_id}' at the top in analysis.ipynb (position 1)."
    )
    assert done.result.summary == "Inserted code cell 1 ('import pandas as pd') into analysis.ipynb"
    assert next(iter(world.sources())) == new_id


def test_insert_after_a_cell(world: World) -> None:
    done = call(
        world,
        "NotebookEdit",
        {"cell_id": "c0", "new_source": "## Step", "cell_type": "markdown", "edit_mode": "insert"},
    )
    assert list(world.sources())[1] == done.result.data["cell_id"]
    assert "after cell 'c0'" in done.result.content


def test_insert_without_a_cell_type_says_what_is_missing(world: World) -> None:
    done = call(world, "NotebookEdit", {"new_source": "x", "edit_mode": "insert"})
    assert done.result.content == "INVALID_ARGS: edit_mode 'insert' needs cell_type ('code' or 'markdown')"


def test_an_unknown_cell_id_says_how_to_find_the_right_one(world: World) -> None:
    done = call(world, "NotebookEdit", {"cell_id": "x9", "new_source": "", "edit_mode": "delete"})
    assert done.result.content == (
        "CELL_NOT_FOUND: no cell with id 'x9' in analysis.ipynb; call NotebookRead for the current ids"
    )


def test_unchanged_source_is_no_change(world: World) -> None:
    read(world)
    done = call(world, "NotebookEdit", {"cell_id": "md", "new_source": "# Notes\nsome text"})
    assert done.result.error_code == "NO_CHANGE"


def test_replace_with_a_new_type_changes_the_type(world: World) -> None:
    read(world)
    done = call(world, "NotebookEdit", {"cell_id": "md", "new_source": "print('hi')", "cell_type": "code"})
    assert done.result.content.startswith(
        "Edited cell 'md' in analysis.ipynb (+1 −2). It is now a code cell."
    )
    assert world.sources()["md"] == "print('hi')"


def test_delete_then_undo_puts_the_cell_back(world: World) -> None:
    read(world)
    done = call(world, "NotebookEdit", {"cell_id": "c1", "new_source": "", "edit_mode": "delete"})
    assert done.result.content.startswith("Deleted code cell 'c1' (2 lines) from analysis.ipynb.")
    assert done.result.summary == "Deleted cell 2 ('x = 1') of analysis.ipynb"
    assert "c1" not in world.sources()
    (change,) = world.ctx.journal.changes
    assert isinstance(change, CellChange) and change.inverse["ops"][0]["op"] == "restore"
    step = asyncio.run(undo_cell_change(change, world.ctx))
    assert step.done
    assert step.text == "restored cell c1 in analysis.ipynb (the agent had deleted it)"
    assert list(world.sources()) == ["c0", "c1", "c2", "md"]


def test_undo_of_an_insert_and_a_replace(world: World) -> None:
    read(world)
    call(
        world,
        "NotebookEdit",
        {"cell_id": "c2", "new_source": "y = 1", "cell_type": "code", "edit_mode": "insert"},
    )
    call(world, "NotebookEdit", {"cell_id": "c0", "new_source": "x = 0  # changed"})
    changes = [c for c in reversed(world.ctx.journal.changes) if isinstance(c, CellChange)]
    assert len(changes) == len(world.ctx.journal.changes) == 2
    steps = [asyncio.run(undo_cell_change(c, world.ctx)) for c in changes]
    assert all(step.done for step in steps)
    lines = [step.text for step in steps]
    assert lines[0] == "restored cell c0 in analysis.ipynb"
    assert lines[1].startswith("removed cell ") and lines[1].endswith(
        " from analysis.ipynb (the agent had inserted it)"
    )
    assert world.sources() == {
        "c0": "x = 0\nprint(x)",
        "c1": "x = 1\nprint(x)",
        "c2": "x = 2\nprint(x)",
        "md": "# Notes\nsome text",
    }


def test_undo_skips_a_cell_the_user_changed_after_the_agent(world: World) -> None:
    read(world)
    call(world, "NotebookEdit", {"cell_id": "c0", "new_source": "x = 'agent'"})
    world.type_into("c0", "x = 'user'")
    (change,) = world.ctx.journal.changes
    assert isinstance(change, CellChange)
    step = asyncio.run(undo_cell_change(change, world.ctx))
    assert not step.done
    assert step.text == (
        "skipped cell c0 in analysis.ipynb: it changed after the agent edited it; undoing would lose those "
        "changes — edit it by hand or ask the agent"
    )
    assert world.sources()["c0"] == "x = 'user'"


def test_the_file_of_a_live_notebook_is_never_written_and_a_file_notebook_stays_valid(world: World) -> None:
    read(world)
    call(world, "NotebookEdit", {"cell_id": "c0", "new_source": "x = 9"})
    call(world, "NotebookEdit", {"new_source": "z", "cell_type": "markdown", "edit_mode": "insert"})
    if world.page is not None:
        assert world.path.read_bytes() == world.disk
    else:
        assert_valid(world.path)


def test_rules_match_the_kernels_notebook_when_no_path_is_given(world: World) -> None:
    tool = notebook_tools()[1]
    params = tool.Input(new_source="x", cell_id="c0")
    assert tool.rule_subject(params, world.ctx) == "analysis.ipynb"


def test_a_path_that_is_not_a_notebook_is_refused(world: World, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    done = call(world, "NotebookEdit", {"notebook_path": "a.py", "new_source": "x", "cell_id": "c0"})
    assert done.result.content == (
        "INVALID_ARGS: 'a.py' is not a notebook (.ipynb); use Read, Edit or Write for other files"
    )


def test_a_notebook_outside_the_roots_is_refused(world: World) -> None:
    done = call(world, "NotebookEdit", {"notebook_path": "/etc/x.ipynb", "new_source": "x", "cell_id": "c0"})
    assert done.result.error_code == "OUTSIDE_ROOTS"


def test_a_keystroke_between_the_check_and_the_change_is_caught_by_the_backend(world: World) -> None:
    from jupyter_agent.base.errors import ToolError
    from jupyter_agent.builtin_tools.notebook.edit import NotebookEditInput, apply_edit, plan_edit

    read(world)

    async def scenario() -> None:
        edit = await plan_edit(NotebookEditInput(cell_id="c2", new_source="x = 7"), world.ctx)
        world.type_into("c2", "x = 2  # just typed")
        await apply_edit(edit, world.ctx, tool="NotebookEdit")

    with pytest.raises(ToolError) as caught:
        asyncio.run(scenario())
    assert caught.value.message == (
        "cell 'c2' of analysis.ipynb changed while the edit was waiting (the user is editing it?); nothing was "
        "changed — call NotebookRead with cell_id='c2' and redo the change on its current source"
    )
    assert world.sources()["c2"] == "x = 2  # just typed"


def test_an_edit_of_a_cell_read_as_empty_is_refused_after_the_user_types_in_it(world: World) -> None:
    """An empty source is still an expectation ('' is not 'no check'), down to the backend's last check."""
    from jupyter_agent.base.errors import ToolError
    from jupyter_agent.builtin_tools.notebook.edit import NotebookEditInput, apply_edit, plan_edit

    world.type_into("c1", "")
    read(world, "c1")

    async def scenario() -> None:
        edit = await plan_edit(NotebookEditInput(cell_id="c1", new_source="x = 5"), world.ctx)
        world.type_into("c1", "df = load()  # just typed")
        await apply_edit(edit, world.ctx, tool="NotebookEdit")

    with pytest.raises(ToolError) as caught:
        asyncio.run(scenario())
    assert caught.value.code == "STALE_READ"
    assert world.sources()["c1"] == "df = load()  # just typed"
    assert world.ctx.journal.changes == []


def test_undo_run_reverts_cell_edits_and_the_agent_must_read_the_cell_again(world: World) -> None:
    from jupyter_agent.undo.run import undo_run

    read(world)
    call(world, "NotebookEdit", {"cell_id": "c0", "new_source": "x = 'agent'"})
    report = asyncio.run(undo_run(world.ctx.journal, world.ctx))
    assert report == "undo run 0:\n  restored cell c0 in analysis.ipynb"
    assert world.sources()["c0"] == "x = 0\nprint(x)"
    again = call(world, "NotebookEdit", {"cell_id": "c0", "new_source": "x = 'again'"})
    assert again.result.content.startswith("NOT_READ: cell 'c0' of analysis.ipynb has not been read")


def test_undo_of_a_cell_whose_notebook_is_gone_is_skipped_with_the_reason(world: World) -> None:
    read(world)
    call(world, "NotebookEdit", {"cell_id": "c0", "new_source": "x = 'agent'"})
    (change,) = world.ctx.journal.changes
    assert isinstance(change, CellChange)
    moved = CellChange(
        notebook=str(world.path.with_name("gone.ipynb")),
        op=change.op,
        cell_id=change.cell_id,
        inverse=change.inverse,
        after_source=change.after_source,
        tool=change.tool,
    )
    step = asyncio.run(undo_cell_change(moved, world.ctx))
    assert not step.done
    assert step.text.startswith("skipped cell c0 in gone.ipynb: ")
    assert "gone.ipynb' does not exist" in step.text


def test_an_unusable_undo_record_is_skipped_not_applied(world: World) -> None:
    broken = CellChange(
        notebook=str(world.path),
        op="replace",
        cell_id="c0",
        inverse={"ops": [{"op": "explode"}]},
        after_source="x",
        tool="NotebookEdit",
    )
    step = asyncio.run(undo_cell_change(broken, world.ctx))
    assert not step.done
    assert (
        step.text == "skipped cell c0 in analysis.ipynb: its undo record is not usable (unknown op 'explode')"
    )
    assert world.sources()["c0"] == "x = 0\nprint(x)"


def test_an_undo_the_notebook_refuses_is_skipped_with_the_notebooks_own_reason(world: World) -> None:
    """A refusal without a wording of its own (not stale, gone or already back) is passed on as the engine says it."""
    no_id = {"cell_type": "code", "source": "x = 9", "metadata": {}, "outputs": [], "execution_count": None}
    restore = CellChange(
        notebook=str(world.path),
        op="delete",
        cell_id="c9",
        inverse={"ops": [{"op": "restore", "index": 0, "cell": no_id}]},
        after_source=None,
        tool="NotebookEdit",
    )
    step = asyncio.run(undo_cell_change(restore, world.ctx))
    assert not step.done
    assert step.text == "skipped cell c9 in analysis.ipynb: the cell to restore has no 'id'"
    assert list(world.sources()) == ["c0", "c1", "c2", "md"]
