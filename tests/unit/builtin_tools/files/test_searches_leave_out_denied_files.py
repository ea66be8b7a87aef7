"""Glob and Grep leave out what a Read deny rule covers, in every root, and say how many they hid."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import ToolHarness

from jupyter_agent.base.result import ToolResult
from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.tools import Rule


def search(
    root: Path, deny: list[Rule], name: str, *, roots: tuple[Path, ...] = (), **fields: Any
) -> ToolResult:
    result = ToolHarness(root, file_tools(), deny=deny, roots=roots).call(name, **fields)
    assert not result.is_error, result.content
    return result


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = Path(os.path.realpath(tmp_path)) / "project"
    (project / "secrets").mkdir(parents=True)
    (project / "secrets" / "api.txt").write_text("token swordfish\n")
    (project / "secrets" / "db.txt").write_text("password swordfish\n")
    (project / "notes.txt").write_text("the swordfish is in the vault\n")
    return project


def test_two_hidden_files_are_counted_in_the_plural(root: Path) -> None:
    result = search(root, [Rule("Read", "secrets/**")], "Glob", pattern="**/*.txt")
    assert result.content.splitlines()[0] == "notes.txt"
    assert "secrets" not in result.content
    assert "[2 paths were hidden by a deny rule.]" in result.content


def test_in_another_root_a_rule_matches_paths_relative_to_that_root(root: Path) -> None:
    """Files outside the working directory are shown by absolute path; rules read them like `secrets/db.txt`."""
    data = root.parent / "data"
    (data / "secrets").mkdir(parents=True)
    (data / "secrets" / "db.txt").write_text("password swordfish\n")
    (data / "public.txt").write_text("swordfish facts\n")
    for name, fields in (("Glob", {"pattern": "**/*.txt"}), ("Grep", {"pattern": "swordfish"})):
        result = search(
            root, [Rule("Read", "secrets/**")], name, roots=(root, data), path=str(data), **fields
        )
        assert str(data / "public.txt") in result.content, (name, result.content)
        assert "db.txt" not in result.content, (name, result.content)
        assert "[1 path was hidden by a deny rule.]" in result.content, (name, result.content)


@pytest.mark.parametrize("deny", [[], [Rule("Grep", "secrets/**")]], ids=["no deny rule", "a rule for Grep"])
def test_without_a_deny_rule_on_reading_nothing_is_hidden(root: Path, deny: list[Rule]) -> None:
    result = search(root, deny, "Glob", pattern="**/*.txt")
    assert sorted(result.content.splitlines()) == ["notes.txt", "secrets/api.txt", "secrets/db.txt"]
