"""Where a frontend holds the kernel's notebook (here VS Code), NotebookEdit proposes and RunCell shows: the file
is never written, nothing is journaled or counted as read, and the model is told it was shown, not applied."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import ToolHarness
from notebook_testkit import World

from jupyter_agent.base.journal import RunJournal
from jupyter_agent.builtin_tools.kernel import InlineMainThread
from jupyter_agent.builtin_tools.notebook import notebook_tools
from jupyter_agent.builtin_tools.notebook.proposal import PROPOSAL_KEY
from jupyter_agent.builtin_tools.notebook.run import CELL_OUTPUTS_KEY
from jupyter_agent.tools import ToolResult
from jupyter_agent.tools.scope import RunScope

HELD = (
    "Proposed, not applied: VS Code holds 'analysis.ipynb' in its editor, with changes the file on disk does not "
    "have (the running cell's outputs at least); writing the file would conflict with the editor's copy when it "
    "saves."
)


@pytest.fixture
def vscode(tmp_path: Path) -> Iterator[World]:
    world = World(tmp_path, "vscode")
    world.ctx.namespace = {}
    world.ctx.services = dataclasses.replace(world.ctx.services, main_thread=InlineMainThread())
    yield world
    world.close()


def call(world: World, name: str, tool_input: dict[str, Any]) -> ToolResult:
    return ToolHarness(world.ctx, notebook_tools(), mode="bypassPermissions").call(name, tool_input)


def test_a_replace_is_proposed_with_its_diff_and_the_file_is_untouched(vscode: World) -> None:
    before = vscode.path.read_bytes()
    call(vscode, "NotebookRead", {})
    result = call(vscode, "NotebookEdit", {"cell_id": "c1", "new_source": "x = 100\nprint(x)"})
    assert not result.is_error
    assert result.content == (
        f"{HELD} The new source of cell 'c1' and its diff are shown to the user in this cell's output, ready to "
        "copy into the cell; the notebook is unchanged until they apply it (NotebookRead shows whether they did "
        "once the notebook is saved)."
    )
    assert result.summary == "Proposed a change to cell c1 (not applied)"
    assert result.diff is not None and "-x = 1" in result.diff and "+x = 100" in result.diff
    proposal = result.data[PROPOSAL_KEY]
    assert proposal["mode"] == "replace" and proposal["new_source"] == "x = 100\nprint(x)"
    assert proposal["next_input"] is False and proposal["reason"] in HELD
    assert vscode.path.read_bytes() == before
    assert vscode.ctx.journal.changes == []  # nothing to undo: nothing changed
    # The cell is as read: the next proposal for it needs no new read, and is checked against the file.
    again = call(vscode, "NotebookEdit", {"cell_id": "c1", "new_source": "x = 200\nprint(x)"})
    assert again.content.startswith("Proposed, not applied")


def test_a_replace_is_still_refused_for_a_cell_not_read(vscode: World) -> None:
    result = call(vscode, "NotebookEdit", {"cell_id": "c1", "new_source": "x = 100"})
    assert result.error_code == "NOT_READ"


def test_one_new_code_cell_per_run_is_offered_as_the_next_input(vscode: World) -> None:
    insert = {"edit_mode": "insert", "cell_type": "code", "new_source": "df.describe()"}
    first, second = call(vscode, "NotebookEdit", insert), call(vscode, "NotebookEdit", insert)
    assert first.data[PROPOSAL_KEY]["next_input"] is True
    assert "VS Code inserts it below the %%agent cell when this cell finishes" in first.content
    assert second.data[PROPOSAL_KEY]["next_input"] is False
    assert second.content.endswith("Only the first new code cell of a run can be inserted for the user.")
    vscode.ctx.run = RunScope(journal=RunJournal(run_id=2))  # the next run has its own scope
    assert call(vscode, "NotebookEdit", insert).data[PROPOSAL_KEY]["next_input"] is True


def test_a_markdown_cell_is_shown_to_copy_and_a_delete_is_shown_to_do(vscode: World) -> None:
    markdown = call(
        vscode,
        "NotebookEdit",
        {"edit_mode": "insert", "cell_type": "markdown", "new_source": "# Notes", "cell_id": "c0"},
    )
    assert markdown.data[PROPOSAL_KEY]["next_input"] is False
    assert markdown.content.endswith("ready to copy into a new cell after cell 'c0'.")
    call(vscode, "NotebookRead", {})
    delete = call(vscode, "NotebookEdit", {"edit_mode": "delete", "cell_id": "c2", "new_source": ""})
    assert delete.content.endswith(
        "The user is shown that cell 'c2' should be deleted; it stays until they delete it."
    )
    assert vscode.sources()["c2"] == "x = 2\nprint(x)"


def test_a_move_and_a_clear_of_outputs_are_proposed_and_the_file_is_untouched(vscode: World) -> None:
    from jupyter_agent.ui.proposal_view import proposal_bundle

    before = vscode.path.read_bytes()
    move = call(vscode, "NotebookEdit", {"edit_mode": "move", "cell_id": "c2", "after_cell_id": "c0"})
    assert (
        move.content
        == f"{HELD} The user is shown that cell 'c2' should move after cell 'c0'; it stays until they move it."
    )
    assert move.data[PROPOSAL_KEY]["mode"] == "move" and move.data[PROPOSAL_KEY]["after_id"] == "c0"
    assert (
        move.diff is not None and "\n+[code] c2: x = 2\n [code] c1: x = 1\n-[code] c2: x = 2\n" in move.diff
    )
    assert proposal_bundle(move.data[PROPOSAL_KEY], move.diff)["text/plain"].startswith(
        "Proposed: move cell 'c2' of analysis.ipynb after cell 'c0' — not applied"
    )
    call(vscode, "NotebookRead", {})
    clear = call(vscode, "NotebookEdit", {"cell_id": "c1", "clear_outputs": True})
    assert clear.content == (
        f"{HELD} The user is shown that the outputs of cell 'c1' should be cleared; they stay until the user "
        "clears them."
    )
    shown = proposal_bundle(clear.data[PROPOSAL_KEY], clear.diff)["text/plain"]
    assert shown.startswith("Proposed: clear the outputs of cell 'c1' of analysis.ipynb — not applied")
    assert "New source" not in shown
    assert vscode.path.read_bytes() == before
    assert vscode.ctx.journal.changes == []


def test_run_cell_runs_the_saved_source_and_hands_its_outputs_to_the_view(vscode: World) -> None:
    before = vscode.path.read_bytes()
    result = call(vscode, "RunCell", {"cell_id": "c1"})
    assert result.content.startswith(
        "1\n[cell 'c1' of analysis.ipynb ran as [ ]; its outputs are shown in this %%agent cell's output, not "
        "written into the cell: VS Code holds 'analysis.ipynb'"
    )
    assert (
        "the source that ran was read from the saved file of the notebook open in VS Code" in result.content
    )
    shown = result.data[CELL_OUTPUTS_KEY]
    assert shown["cell_id"] == "c1" and shown["outputs"] == [
        {"output_type": "stream", "name": "stdout", "text": "1\n"}
    ]
    assert vscode.path.read_bytes() == before
