"""No tool ever creates an allowed root or its parents: a write under a root that does not exist (a directory
named on another machine, a volume not mounted) fails with what to do, and nothing appears on disk."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from jupyter_agent.base.errors import ToolError
from jupyter_agent.base.sandbox import Sandbox, atomic_write
from jupyter_agent.builtin_tools.files import WriteInput, WriteTool
from jupyter_agent.tools import ToolContext


def test_missing_directories_below_the_root_are_made_and_the_root_itself_never(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    atomic_write(root / "a" / "b" / "c.txt", b"x", make_below=root)
    assert (root / "a" / "b" / "c.txt").read_bytes() == b"x"
    gone = tmp_path / "gone" / "root"
    with pytest.raises(ToolError) as refused:
        atomic_write(gone / "a" / "c.txt", b"x", make_below=gone)
    assert refused.value.code == "FILE_NOT_FOUND"
    assert refused.value.message.startswith(
        f"the allowed root '{gone}' does not exist on this kernel's machine"
    )
    assert not (tmp_path / "gone").exists()


def test_write_under_a_root_that_vanished_creates_nothing(tmp_path: Path) -> None:
    root = tmp_path / "mnt" / "data"
    root.mkdir(parents=True)
    ctx = ToolContext(sandbox=Sandbox.at(root))
    root.rmdir()
    (tmp_path / "mnt").rmdir()  # the volume went away after the session started
    tool = WriteTool()
    with pytest.raises(ToolError) as refused:
        asyncio.run(tool.run(WriteInput(file_path="notes/today.md", content="n"), ctx))
    assert "does not exist on this kernel's machine" in refused.value.message
    assert not (tmp_path / "mnt").exists()


def test_the_root_of_a_path_and_the_missing_roots(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    sandbox = Sandbox.at(tmp_path, roots=(tmp_path / "a", tmp_path / "b"))
    assert sandbox.root_of((tmp_path / "a" / "x.txt").resolve()) == (tmp_path / "a").resolve()
    assert sandbox.missing_roots() == [(tmp_path / "b").resolve()]
    with pytest.raises(ToolError):
        sandbox.root_of(Path("/elsewhere/x"))
