"""Undo, review undo and rewind never write or delete outside the roots, nor through a link: after the agent's
file, notebook or their folder was replaced by a symlink (an approved `ln -sf`, a background job, a `git
checkout` of a branch where it is a link), each such step is refused with the reason, the others still run, and
what the link points at stays byte-identical.

The "outside" files hold exactly what the agent wrote (the model chooses that), so only the path decides.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import shutil
from pathlib import Path

import pytest
from agent_testkit import Harness, HarnessFactory
from dispatch_harness import ToolHarness, file_harness

from jupyter_agent.base.journal import RunJournal
from jupyter_agent.builtin_tools.catalog import builtin_tools
from jupyter_agent.notebook.file_backend import parse_notebook
from jupyter_agent.notebook.provider import NotebookProvider, WriteAccess
from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.tools import Sandbox
from jupyter_agent.tools.scope import RunScope
from jupyter_agent.undo.net import net_changes
from jupyter_agent.undo.review import undo as review_undo
from jupyter_agent.undo.rewind import choose, rewind
from jupyter_agent.undo.run import undo_run


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """(the root, a folder outside it)."""
    base = Path(os.path.realpath(tmp_path))
    (base / "project").mkdir()
    (base / "outside").mkdir()
    return base / "project", base / "outside"


def swap_for_link(path: Path, target: Path) -> None:
    """`path` (a file or a folder) replaced by a symlink to `target`, as `ln -sfn` or a checkout would."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
    path.symlink_to(target)


def written_then_swapped(world: tuple[Path, Path], name: str, content: str) -> tuple[ToolHarness, RunJournal]:
    """A run that created `sub/<name>`; then `sub` became a link to the outside folder, which holds the same file."""
    root, outside = world
    files = file_harness(root)
    journal = RunJournal(run_id=1)
    files.ctx.run = RunScope(journal=journal)
    files.ok("Write", file_path=f"sub/{name}", content=content)
    (outside / name).write_text(content)
    swap_for_link(root / "sub", outside)
    return files, journal


def test_undo_of_a_created_file_does_not_delete_through_a_swapped_folder(world: tuple[Path, Path]) -> None:
    root, outside = world
    files, journal = written_then_swapped(world, "keys.txt", "id_rsa contents\n")
    report = asyncio.run(undo_run(journal, files.ctx))
    assert (outside / "keys.txt").read_text() == "id_rsa contents\n"  # not deleted
    assert report.splitlines()[1].startswith(
        f"  skipped sub/keys.txt: '{root / 'sub' / 'keys.txt'}' now leads to '{outside / 'keys.txt'}' through a "
        "symlink, so it is not the file that was recorded; nothing was read or changed"
    )
    assert not journal.undone


def test_undo_does_not_delete_a_protected_file_a_swapped_folder_now_reaches(world: tuple[Path, Path]) -> None:
    root, _ = world
    settings = root / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooks": {}}\n')
    files = file_harness(root)
    journal = RunJournal(run_id=1)
    files.ctx.run = RunScope(journal=journal)
    files.ok("Write", file_path="conf/settings.json", content='{"hooks": {}}\n')
    swap_for_link(root / "conf", root / ".claude")
    report = asyncio.run(undo_run(journal, files.ctx))
    assert settings.read_text() == '{"hooks": {}}\n', report


def test_undo_of_an_edit_does_not_write_through_a_file_swapped_for_a_link(world: tuple[Path, Path]) -> None:
    root, outside = world
    files = file_harness(root)
    (root / "a.txt").write_text("model's chosen before\n")
    files.read("a.txt")
    journal = RunJournal(run_id=1)
    files.ctx.run = RunScope(journal=journal)
    files.ok("Edit", file_path="a.txt", old_string="chosen before", new_string="after")
    target = outside / ".bashrc"
    target.write_text("model's after\n")
    swap_for_link(root / "a.txt", target)
    report = asyncio.run(undo_run(journal, files.ctx))
    assert target.read_text() == "model's after\n", report
    assert "now leads to" in report and "skipped a.txt" in report


def test_one_refused_step_leaves_the_other_steps_of_the_undo_running(world: tuple[Path, Path]) -> None:
    root, outside = world
    files = file_harness(root)
    journal = RunJournal(run_id=1)
    files.ctx.run = RunScope(journal=journal)
    files.ok("Write", file_path="kept.md", content="first\n")  # older: must still be undone
    files.ok("Write", file_path="sub/x.md", content="second\n")
    files.ok("Write", file_path="also.md", content="third\n")  # newer: must still be undone
    (outside / "x.md").write_text("second\n")
    swap_for_link(root / "sub", outside)
    report = asyncio.run(undo_run(journal, files.ctx)).splitlines()
    assert report[1] == "  removed also.md (the agent had created it)"
    assert report[2].startswith("  skipped sub/x.md: ")
    assert report[3] == "  removed kept.md (the agent had created it)"
    assert report[4] == "some changes were kept (see above); run %agent undo again after resolving them"
    assert not (root / "kept.md").exists() and not (root / "also.md").exists()
    assert (outside / "x.md").read_text() == "second\n"


def test_review_undo_refuses_the_swapped_file_with_the_reason(world: tuple[Path, Path]) -> None:
    _, outside = world
    files, journal = written_then_swapped(world, "notes.md", "notes\n")
    (result,) = asyncio.run(review_undo(journal, net_changes(journal), files.ctx))
    assert result.outcome == "refused" and "now leads to" in result.text
    assert (outside / "notes.md").read_text() == "notes\n"
    assert journal.review == {}  # still pending


def edit_cell(harness: HarnessFactory, notebook: Path) -> tuple[Harness, str]:
    """A run that reads `notebook` and replaces its code cell's source with 'print(\"agent\")'."""
    cell_id = parse_notebook(notebook.read_bytes(), notebook.name)["cells"][0]["id"]
    name = str(notebook.relative_to(notebook.parents[1])) if notebook.parent.name == "nbs" else notebook.name
    script = [
        Turn(blocks=[ToolUse(name="NotebookRead", input={"notebook_path": name})]),
        Turn(
            blocks=[
                ToolUse(
                    name="NotebookEdit",
                    input={"notebook_path": name, "cell_id": cell_id, "new_source": 'print("agent")'},
                )
            ]
        ),
        Turn(blocks=[Text("edited")]),
    ]
    h = harness(script, tools=builtin_tools(), mode="acceptEdits")
    assert h.run("edit the cell").reason == "end_turn"
    return h, cell_id


def notebook(path: Path, source: str) -> Path:
    cell = {
        "cell_type": "code",
        "id": "c1",
        "metadata": {},
        "execution_count": None,
        "outputs": [],
        "source": source,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


@pytest.mark.parametrize("swapped", ["the notebook", "its folder"])
def test_undo_of_a_cell_edit_never_writes_a_notebook_outside_the_roots(
    harness: HarnessFactory, tmp_path: Path, swapped: str
) -> None:
    base = Path(os.path.realpath(tmp_path))
    inside = notebook(base / "nbs" / "analysis.ipynb", "model's chosen source")
    h, _ = edit_cell(harness, inside)
    outside = base.parent / f"{base.name}-outside"
    outside_nb = outside / "analysis.ipynb"
    outside.mkdir()
    shutil.copy(inside, outside_nb)  # the same cells as the agent left them: only the path tells them apart
    before = outside_nb.read_bytes()
    if swapped == "the notebook":
        swap_for_link(inside, outside_nb)
    else:
        swap_for_link(base / "nbs", outside)
    [journal] = h.session.history
    report = asyncio.run(undo_run(journal, h.session.ctx))
    assert outside_nb.read_bytes() == before, report
    assert "skipped cell c1 in analysis.ipynb: " in report and "through a symlink" in report
    assert not journal.undone


class _UnreadableFolder(NotebookProvider):
    """Stands in for a notebook folder this user may not read (chmod 000 does not stop root, who runs the tests)."""

    async def open_for_write(self, path: str | Path | None = None) -> WriteAccess:
        raise PermissionError(13, "Permission denied", str(path))


def test_a_step_that_fails_unexpectedly_is_reported_and_the_older_steps_still_run(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    inside = notebook(Path(os.path.realpath(tmp_path)) / "nbs" / "analysis.ipynb", "x = 1")
    h, _ = edit_cell(harness, inside)
    [journal] = h.session.history
    ctx = h.session.ctx
    files = file_harness(ctx.for_run(RunScope(journal=journal)))
    files.ok("Write", file_path="later.md", content="later\n")  # recorded in the same run, after the edit
    inside.write_text(inside.read_text() + "\n")  # changed since: undone cell by cell, not byte for byte
    ctx.services = dataclasses.replace(ctx.services, notebooks=_UnreadableFolder(default_path=None))
    report = asyncio.run(undo_run(journal, ctx)).splitlines()
    assert report[1] == "  removed later.md (the agent had created it)"
    assert report[2] == (
        "  skipped NotebookEdit: replace cell c1 in analysis.ipynb: undoing it failed (PermissionError: [Errno 13] "
        f"Permission denied: '{inside}'); nothing of it was changed"
    )


def test_rewind_refuses_the_swapped_step_and_rewinds_the_rest(
    harness: HarnessFactory, world: tuple[Path, Path]
) -> None:
    root, outside = world
    write = [
        Turn(blocks=[ToolUse(name="Write", input={"file_path": "sub/x.md", "content": "x\n"})]),
        Turn(blocks=[ToolUse(name="Write", input={"file_path": "y.md", "content": "y\n"})]),
        Turn(blocks=[Text("wrote")]),
    ]
    h = harness(write, tools=builtin_tools(), mode="acceptEdits")
    h.session.ctx.sandbox = Sandbox.at(root)
    assert h.run("write two files").reason == "end_turn"
    (outside / "x.md").write_text("x\n")
    swap_for_link(root / "sub", outside)
    journal = choose(h.session, None)
    said = h.worker.submit(rewind(h.session, journal, keep_changes=False)).result(timeout=30)
    assert "  removed y.md (the agent had created it)" in said.splitlines()
    assert any(
        line.startswith("  skipped sub/x.md: ") and "now leads to" in line for line in said.splitlines()
    )
    assert (outside / "x.md").read_text() == "x\n" and not (root / "y.md").exists()


def test_undo_refuses_a_file_the_roots_no_longer_hold(world: tuple[Path, Path]) -> None:
    root, _ = world
    (root / "data").mkdir()
    files = file_harness(root)
    journal = RunJournal(run_id=1)
    files.ctx.run = RunScope(journal=journal)
    files.ok("Write", file_path="report.md", content="report\n")
    files.ctx.sandbox = Sandbox.at(root, roots=(root / "data",))  # %config AgentMagics.roots changed since
    report = asyncio.run(undo_run(journal, files.ctx))
    assert report.splitlines()[1] == (
        f"  skipped report.md: the file '{root / 'report.md'}' is outside the folders it may be in; the package "
        f"reads and writes its own files only under '{root / 'data'}' — add its folder to the roots"
    )
    assert (root / "report.md").read_text() == "report\n"


def test_undo_of_a_cell_edit_refuses_a_notebook_the_roots_no_longer_hold(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    base = Path(os.path.realpath(tmp_path))
    inside = notebook(base / "nbs" / "analysis.ipynb", "x = 1")
    h, _ = edit_cell(harness, inside)
    after = inside.read_bytes()
    (base / "data").mkdir()
    ctx = h.session.ctx
    ctx.sandbox = Sandbox.at(base, roots=(base / "data",))  # %config AgentMagics.roots changed since
    [journal] = h.session.history
    report = asyncio.run(undo_run(journal, ctx))
    assert "  skipped cell c1 in analysis.ipynb: the file " in report, report
    assert f"only under '{base / 'data'}' — add its folder to the roots" in report
    assert inside.read_bytes() == after
