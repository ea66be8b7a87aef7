"""Review after a run: the journal folded into one net change per cell and per file, and Keep / Undo of one
of them (or all), guarded like `%agent undo`. On both backends (the file, and the live page via `FakePage`)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import ToolHarness
from notebook_testkit import World

from jupyter_agent.base.journal import RunJournal
from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.builtin_tools.notebook import notebook_tools
from jupyter_agent.tools.scope import RunScope
from jupyter_agent.undo import review
from jupyter_agent.undo.net import NetCellChange, NetFileChange, net_changes
from jupyter_agent.undo.run import undo_run


@pytest.fixture(params=["file", "live"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    world = World(tmp_path, request.param)
    world.ctx.run = RunScope(journal=RunJournal(run_id=7))
    yield world
    world.close()


def call(world: World, name: str, **tool_input: Any) -> str:
    tools = ToolHarness(world.ctx, [*notebook_tools(), *file_tools()], mode="bypassPermissions")
    return tools.ok(name, tool_input).content


def edit(world: World, cell_id: str, source: str, **more: Any) -> str:
    return call(world, "NotebookEdit", cell_id=cell_id, new_source=source, **more)


def inserted_id(world: World, after: str, source: str) -> str:
    before = set(world.sources())
    edit(world, after, source, cell_type="code", edit_mode="insert")
    (new,) = set(world.sources()) - before
    return new


def cells(world: World) -> dict[str, NetCellChange]:
    return {c.cell_id: c for c in net_changes(world.ctx.journal) if isinstance(c, NetCellChange)}


def undo(world: World, target: str) -> list[review.ReviewResult]:
    journal = world.ctx.journal
    return asyncio.run(review.undo(journal, review.select(journal, target, world.ctx.sandbox), world.ctx))


def test_insert_then_replace_nets_to_one_added_cell_and_undo_removes_it(world: World) -> None:
    call(world, "NotebookRead")
    new = inserted_id(world, "c0", "y = 1")
    edit(world, new, "y = 2")
    edit(world, new, "y = 3")
    (net,) = cells(world).values()
    assert (net.cell_id, net.kind, net.before_source, net.after_source) == (new, "added", None, "y = 3")
    assert review.line_counts(net) == "+1 −0"
    (result,) = undo(world, new)
    assert result.outcome == "undone"
    assert list(world.sources()) == ["c0", "c1", "c2", "md"]


def test_replace_twice_nets_to_the_first_source_and_undo_puts_it_back(world: World) -> None:
    call(world, "NotebookRead")
    edit(world, "c1", "x = 10\nprint(x)")
    edit(world, "c1", "x = 100\nprint(x)", cell_type="markdown")
    net = cells(world)["c1"]
    assert (net.kind, net.before_source, net.after_source) == (
        "changed",
        "x = 1\nprint(x)",
        "x = 100\nprint(x)",
    )
    assert net.cell_type == "code"
    assert review.line_counts(net) == "+1 −1"
    (result,) = undo(world, "c1")
    assert (result.outcome, result.text) == ("undone", "restored cell c1 in analysis.ipynb")
    assert world.sources()["c1"] == "x = 1\nprint(x)"


def test_insert_then_delete_by_the_same_run_nets_to_nothing(world: World) -> None:
    call(world, "NotebookRead")
    new = inserted_id(world, "c0", "tmp = 1")
    edit(world, new, "", edit_mode="delete")
    assert len(world.ctx.journal.changes) == 2
    assert net_changes(world.ctx.journal) == []


def test_replace_then_delete_restores_the_cell_as_it_was_before_the_run(world: World) -> None:
    call(world, "NotebookRead")
    edit(world, "c2", "x = 'agent'")
    edit(world, "c2", "", edit_mode="delete")
    net = cells(world)["c2"]
    assert (net.kind, net.before_source, net.after_source, net.index_before) == (
        "deleted",
        "x = 2\nprint(x)",
        None,
        2,
    )
    (result,) = undo(world, "c2")
    assert result.outcome == "undone", result.text
    assert world.sources() == {
        "c0": "x = 0\nprint(x)",
        "c1": "x = 1\nprint(x)",
        "c2": "x = 2\nprint(x)",
        "md": "# Notes\nsome text",
    }


def test_undo_of_one_cell_reverts_only_that_cell(world: World) -> None:
    call(world, "NotebookRead")
    new = inserted_id(world, "c0", "y = 1")
    edit(world, "c1", "x = 'agent'")
    edit(world, "c2", "", edit_mode="delete")
    (result,) = undo(world, "c1")
    assert result.outcome == "undone"
    assert world.sources() == {
        "c0": "x = 0\nprint(x)",
        new: "y = 1",
        "c1": "x = 1\nprint(x)",
        "md": "# Notes\nsome text",
    }
    assert {c.cell_id: c.review for c in cells(world).values()} == {
        new: "pending",
        "c1": "undone",
        "c2": "pending",
    }


def test_undo_of_a_cell_the_user_changed_since_is_refused_with_the_reason_and_changes_nothing(
    world: World,
) -> None:
    call(world, "NotebookRead")
    edit(world, "c0", "x = 'agent'")
    world.type_into("c0", "x = 'user'")
    (result,) = undo(world, "c0")
    assert result.outcome == "refused"
    assert result.text == (
        "skipped cell c0 in analysis.ipynb: it changed after the agent edited it; undoing would lose those "
        "changes — edit it by hand or ask the agent"
    )
    assert world.sources()["c0"] == "x = 'user'"
    assert cells(world)["c0"].review == "pending"


def test_keep_all_marks_every_pending_change_kept_and_touches_nothing(world: World) -> None:
    call(world, "NotebookRead")
    new = inserted_id(world, "c0", "y = 1")
    edit(world, "c1", "x = 'agent'")
    before = world.sources()
    journal = world.ctx.journal
    results = review.keep(journal, review.select(journal, "all", world.ctx.sandbox), world.ctx.sandbox)
    assert [r.outcome for r in results] == ["kept", "kept"]
    assert {c.review for c in net_changes(journal)} == {"kept"}
    assert world.sources() == before
    assert review.select(journal, "all", world.ctx.sandbox) == []  # nothing pending: undo all does nothing
    assert new in world.sources()


def test_undo_all_undoes_the_pending_changes_newest_first_and_leaves_kept_ones(world: World) -> None:
    call(world, "NotebookRead")
    new = inserted_id(world, "c0", "y = 1")
    edit(world, "c1", "x = 'agent'")
    edit(world, "c2", "", edit_mode="delete")
    journal = world.ctx.journal
    review.keep(journal, review.select(journal, "c1", world.ctx.sandbox), world.ctx.sandbox)
    results = undo(world, "all")
    assert [(r.key.rsplit("#", 1)[1], r.outcome) for r in results] == [("c2", "undone"), (new, "undone")]
    assert world.sources() == {
        "c0": "x = 0\nprint(x)",
        "c1": "x = 'agent'",
        "c2": "x = 2\nprint(x)",
        "md": "# Notes\nsome text",
    }
    assert review.review_text(journal, world.ctx.sandbox).splitlines() == [
        f"run 7  cell {new}  added    +1 −0    undone",
        "run 7  cell c1        changed  +1 −2    kept",
        "run 7  cell c2        deleted  +0 −2    undone",
    ]


def test_files_net_per_path_and_undo_restores_the_bytes_from_before_the_run(
    world: World, tmp_path: Path
) -> None:
    (tmp_path / "a.py").write_bytes(b"x = 1\n")
    call(world, "Read", file_path="a.py")
    call(world, "Edit", file_path="a.py", old_string="x = 1", new_string="x = 2")
    call(world, "Edit", file_path="a.py", old_string="x = 2", new_string="x = 3")
    call(world, "Write", file_path="new.txt", content="hello\n")
    changes = net_changes(world.ctx.journal)
    assert [(type(c), c.kind, c.label(world.ctx.sandbox)) for c in changes] == [
        (NetFileChange, "changed", "a.py"),
        (NetFileChange, "added", "new.txt"),
    ]
    results = undo(world, "a.py")
    assert [r.outcome for r in results] == ["undone"]
    assert (tmp_path / "a.py").read_bytes() == b"x = 1\n"
    assert (tmp_path / "new.txt").exists()
    (tmp_path / "new.txt").write_text("mine\n")
    (refused,) = undo(world, "new.txt")
    assert refused.outcome == "refused" and "it changed after the agent wrote it" in refused.text
    assert (tmp_path / "new.txt").read_text() == "mine\n"


def test_an_unknown_target_lists_what_the_run_changed(world: World) -> None:
    call(world, "NotebookRead")
    edit(world, "c1", "x = 'agent'")
    with pytest.raises(review.ReviewError, match=r"run 7 changed no 'zz'; it changed: cell c1"):
        review.select(world.ctx.journal, "zz", world.ctx.sandbox)


def test_agent_undo_after_a_reviewed_undo_skips_what_is_back_already(world: World) -> None:
    call(world, "NotebookRead")
    edit(world, "c0", "x = 'agent 0'")
    edit(world, "c1", "x = 'agent 1'")
    undo(world, "c1")
    report = asyncio.run(undo_run(world.ctx.journal, world.ctx))
    assert report == (
        "undo run 7:\n  restored cell c0 in analysis.ipynb\n  1 change(s) had been undone in the review already"
    )
    assert world.ctx.journal.undone
    assert {c.review for c in net_changes(world.ctx.journal)} == {"undone"}


def test_a_moved_cell_whose_outputs_were_cleared_nets_to_one_change_and_undo_puts_both_back(
    world: World,
) -> None:
    call(world, "NotebookRead")
    call(world, "NotebookEdit", cell_id="c0", edit_mode="move", after_cell_id="c2")
    call(world, "NotebookEdit", cell_id="c0", clear_outputs=True)
    call(world, "NotebookEdit", cell_id="c0", edit_mode="move", after_cell_id="md")
    assert list(world.sources()) == ["c1", "c2", "md", "c0"]
    net = cells(world)["c0"]
    assert (net.kind, net.before_source, net.after_source) == (
        "changed",
        "x = 0\nprint(x)",
        "x = 0\nprint(x)",
    )
    (result,) = undo(world, "c0")
    assert result.outcome == "undone", result.text
    assert list(world.sources()) == ["c0", "c1", "c2", "md"]
    if world.page is not None:
        cell = next(c for c in world.page.cells if c["id"] == "c0")
    else:
        import nbformat

        cell = next(c for c in nbformat.read(world.path, as_version=4).cells if c["id"] == "c0")
    assert ["".join(o["text"]) for o in cell["outputs"]] == ["0\n"] and cell["execution_count"] == 1


def test_undo_of_a_move_of_a_cell_the_user_changed_since_moves_nothing(world: World) -> None:
    call(world, "NotebookRead")
    call(world, "NotebookEdit", cell_id="c2", edit_mode="move", after_cell_id="")
    world.type_into("c2", "x = 'user'")
    (result,) = undo(world, "c2")
    assert result.outcome == "refused"
    assert list(world.sources()) == ["c2", "c0", "c1", "md"]
    assert world.sources()["c2"] == "x = 'user'"
