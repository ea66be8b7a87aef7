"""`%agent undo` for files: newest change first, created files removed, and nothing the user changed since lost."""

from __future__ import annotations

import asyncio
from pathlib import Path

from dispatch_harness import file_harness

from jupyter_agent.base.journal import CellChange, FileChange, RunJournal
from jupyter_agent.tools import Sandbox
from jupyter_agent.tools.scope import RunScope
from jupyter_agent.undo.run import describe_change, undo_run


def test_undo_restores_edited_files_and_removes_created_ones(tmp_path: Path) -> None:
    files = file_harness(tmp_path)
    ctx = files.ctx
    (tmp_path / "a.py").write_bytes(b"x = 1\r\ny = 2\r\n")
    journal = RunJournal(run_id=1)
    ctx.run = RunScope(journal=journal)
    files.call("Read", file_path="a.py")
    files.call("Edit", file_path="a.py", old_string="x = 1", new_string="x = 10")
    files.call("Edit", file_path="a.py", old_string="y = 2", new_string="y = 20")
    files.call("Write", file_path="new/b.md", content="# new\n")
    assert len(journal.changes) == 3
    report = asyncio.run(undo_run(journal, ctx))
    assert (
        report
        == "undo run 1:\n  removed new/b.md (the agent had created it)\n  restored a.py\n  restored a.py"
    )
    assert (tmp_path / "a.py").read_bytes() == b"x = 1\r\ny = 2\r\n"
    assert not (tmp_path / "new" / "b.md").exists()
    assert journal.undone


def test_undo_refuses_a_file_the_user_changed_after_the_agent_and_keeps_it(tmp_path: Path) -> None:
    files = file_harness(tmp_path)
    ctx = files.ctx
    (tmp_path / "a.py").write_text("x = 1\n")
    journal = RunJournal(run_id=2)
    ctx.run = RunScope(journal=journal)
    files.call("Read", file_path="a.py")
    files.call("Edit", file_path="a.py", old_string="x = 1", new_string="x = 10")
    (tmp_path / "a.py").write_text("x = 10\nmine = True\n")
    report = asyncio.run(undo_run(journal, ctx))
    assert report == (
        "undo run 2:\n"
        "  skipped a.py: it changed after the agent wrote it (1 line(s) differ); undoing would lose those changes "
        "— edit it by hand or ask the agent\n"
        "some changes were kept (see above); run %agent undo again after resolving them"
    )
    assert (tmp_path / "a.py").read_text() == "x = 10\nmine = True\n"
    assert not journal.undone


def test_undo_keeps_a_file_the_user_deleted_after_the_agent_wrote_it(tmp_path: Path) -> None:
    files = file_harness(tmp_path)
    ctx = files.ctx
    journal = RunJournal(run_id=3)
    ctx.run = RunScope(journal=journal)
    files.call("Write", file_path="out.csv", content="a,b\n")
    (tmp_path / "out.csv").unlink()
    report = asyncio.run(undo_run(journal, ctx))
    assert report.splitlines()[1] == (
        "  skipped out.csv: it was deleted after the agent wrote it; nothing to restore over"
    )
    assert not (tmp_path / "out.csv").exists()


def test_the_skip_note_counts_every_line_the_user_changed_even_in_binary_looking_text(tmp_path: Path) -> None:
    files = file_harness(tmp_path)
    ctx = files.ctx
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\nfour\nfive\n")
    journal = RunJournal(run_id=4)
    ctx.run = RunScope(journal=journal)
    files.call("Read", file_path="a.txt")
    files.call("Edit", file_path="a.txt", old_string="three", new_string="3")
    (tmp_path / "a.txt").write_bytes(b"ONE\ntwo\n3\nfour\nfive\n\xff\xfe extra\n")
    report = asyncio.run(undo_run(journal, ctx))
    assert "(3 line(s) differ)" in report  # one line replaced (-1 +1), one added in a second hunk


def test_the_skip_note_counts_changed_lines_in_a_file_the_agent_wrote_with_non_utf8_bytes(
    tmp_path: Path,
) -> None:
    files = file_harness(tmp_path)
    ctx = files.ctx
    (tmp_path / "legacy.py").write_bytes(b"name = 'caf\xe9'\nx = 1\n")  # Latin-1: the edit keeps the byte
    journal = RunJournal(run_id=6)
    ctx.run = RunScope(journal=journal)
    files.call("Read", file_path="legacy.py")
    files.call("Edit", file_path="legacy.py", old_string="x = 1", new_string="x = 2")
    assert (tmp_path / "legacy.py").read_bytes() == b"name = 'caf\xe9'\nx = 2\n"
    (tmp_path / "legacy.py").write_bytes(b"name = 'caf\xe9'\nx = 2\ny = 3\n")
    report = asyncio.run(undo_run(journal, ctx))
    assert "skipped legacy.py: it changed after the agent wrote it (1 line(s) differ)" in report
    assert (tmp_path / "legacy.py").read_bytes() == b"name = 'caf\xe9'\nx = 2\ny = 3\n"


def test_after_an_undo_the_agent_must_read_the_file_again(tmp_path: Path) -> None:
    files = file_harness(tmp_path)
    ctx = files.ctx
    (tmp_path / "a.py").write_text("x = 1\n")
    journal = RunJournal(run_id=5)
    ctx.run = RunScope(journal=journal)
    files.call("Read", file_path="a.py")
    files.call("Edit", file_path="a.py", old_string="x = 1", new_string="x = 2")
    asyncio.run(undo_run(journal, ctx))
    refused = files.call("Edit", file_path="a.py", old_string="x = 1", new_string="x = 3").content
    assert refused == "NOT_READ: 'a.py' has not been read in this conversation; Read it first"


def test_history_lines_say_what_each_change_did(tmp_path: Path) -> None:
    sandbox = Sandbox.at(tmp_path)
    created = FileChange(path=tmp_path / "new.md", before=None, after=b"x", tool="Write")
    changed = FileChange(path=tmp_path / "src" / "a.py", before=b"a", after=b"b", tool="Edit")
    cell = CellChange(
        notebook=str(tmp_path / "nb" / "analysis.ipynb"),
        op="replace",
        cell_id="c1",
        inverse={"ops": []},
        after_source="y",
        tool="NotebookEdit",
    )
    assert describe_change(created, sandbox) == "Write: created new.md"
    assert describe_change(changed, sandbox) == "Edit: changed src/a.py"
    assert describe_change(cell, sandbox) == "NotebookEdit: replace cell c1 in analysis.ipynb"


def test_undo_after_the_review_undid_a_file_says_so_instead_of_an_empty_list(tmp_path: Path) -> None:
    files = file_harness(tmp_path)
    ctx = files.ctx
    journal = RunJournal(run_id=4)
    ctx.run = RunScope(journal=journal)
    files.call("Write", file_path="out.csv", content="a,b\n")
    files.call("Write", file_path="log.txt", content="x\n")
    (tmp_path / "out.csv").unlink()  # what the review's Undo did
    journal.review[str(tmp_path / "out.csv")] = "undone"
    report = asyncio.run(undo_run(journal, ctx))
    assert report == (
        "undo run 4:\n  removed log.txt (the agent had created it)\n  1 change(s) had been undone in the review already"
    )
    assert journal.undone
