"""`%agent undo` for files: newest change first, created files removed, and nothing the user changed since lost."""

from __future__ import annotations

import asyncio
from pathlib import Path

from jupyter_agent.agent.undo import undo_run
from jupyter_agent.tools import Dispatcher, PermissionPolicy, Sandbox, ToolCall, ToolContext, ToolPool
from jupyter_agent.tools.files import file_tools
from jupyter_agent.tools.journal import RunJournal


def agent(tmp_path: Path) -> tuple[Dispatcher, ToolContext]:
    pool = ToolPool()
    pool.set_source("builtin", file_tools())
    return Dispatcher(pool=pool, policy=PermissionPolicy(mode="bypassPermissions")), ToolContext(
        sandbox=Sandbox.at(tmp_path)
    )


def call(dispatcher: Dispatcher, ctx: ToolContext, name: str, **tool_input: object) -> str:
    return asyncio.run(dispatcher.dispatch(ToolCall(id="t", name=name, input=tool_input), ctx)).result.content


def test_undo_restores_edited_files_and_removes_created_ones(tmp_path: Path) -> None:
    dispatcher, ctx = agent(tmp_path)
    (tmp_path / "a.py").write_bytes(b"x = 1\r\ny = 2\r\n")
    ctx.journal = journal = RunJournal(run_id=1)
    call(dispatcher, ctx, "Read", file_path="a.py")
    call(dispatcher, ctx, "Edit", file_path="a.py", old_string="x = 1", new_string="x = 10")
    call(dispatcher, ctx, "Edit", file_path="a.py", old_string="y = 2", new_string="y = 20")
    call(dispatcher, ctx, "Write", file_path="new/b.md", content="# new\n")
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
    dispatcher, ctx = agent(tmp_path)
    (tmp_path / "a.py").write_text("x = 1\n")
    ctx.journal = journal = RunJournal(run_id=2)
    call(dispatcher, ctx, "Read", file_path="a.py")
    call(dispatcher, ctx, "Edit", file_path="a.py", old_string="x = 1", new_string="x = 10")
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
