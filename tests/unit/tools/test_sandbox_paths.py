"""How the sandbox reads a path the model wrote, shows a path back, and what it allows by default."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jupyter_agent.tools import Sandbox, ToolError


def test_a_leading_at_sign_is_the_mention_syntax_not_part_of_the_name(tmp_path: Path) -> None:
    sandbox = Sandbox.at(tmp_path)
    assert sandbox.confine("@notes/todo.md") == sandbox.cwd / "notes" / "todo.md"
    assert sandbox.confine("notes/@todo.md") == sandbox.cwd / "notes" / "@todo.md"


def test_paths_are_shown_relative_to_the_working_directory_or_their_root(tmp_path: Path) -> None:
    work, data = tmp_path / "work", tmp_path / "data"
    work.mkdir()
    data.mkdir()
    sandbox = Sandbox.at(work, roots=(work, data))
    assert sandbox.display_path(sandbox.cwd / "src" / "a.py") == "src/a.py"
    assert sandbox.display_path(sandbox.cwd) == "."
    assert sandbox.display_path(Path(os.path.realpath(data)) / "raw.csv") == "raw.csv"
    assert sandbox.display_path(Path("/etc/passwd")) == "/etc/passwd"


def test_a_path_outside_lists_every_allowed_root(tmp_path: Path) -> None:
    work, data = tmp_path / "work", tmp_path / "data"
    work.mkdir()
    data.mkdir()
    sandbox = Sandbox.at(work, roots=(work, data))
    with pytest.raises(ToolError) as refused:
        sandbox.confine("/etc/passwd")
    assert refused.value.code == "OUTSIDE_ROOTS"
    real_work, real_data = os.path.realpath(work), os.path.realpath(data)
    assert refused.value.message.endswith(f"use a path under '{real_work}', '{real_data}'")


def test_shell_commands_get_no_network_unless_the_sandbox_is_made_with_it(tmp_path: Path) -> None:
    assert Sandbox.at(tmp_path).network is False
    assert Sandbox.at(tmp_path, network=True).network is True
