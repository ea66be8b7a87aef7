"""Absolute path patterns (how Claude Code's `//abs`, `~/` and `/relative-to-settings` anchors arrive) and scopes
(a skill's or command's `allowed-tools`), through the real Dispatcher and the real file tools."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import ToolHarness

from jupyter_agent.base.result import ToolResult
from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.builtin_tools.shell import bash_tool
from jupyter_agent.permissions.policy import DEFAULT_PROTECTED_PATHS, ToolScope
from jupyter_agent.tools import PermissionPolicy, Rule


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "project"
    (root / "notebooks").mkdir(parents=True)
    (root / "secret.txt").write_text("swordfish\n")
    (root / "notebooks" / "secret.txt").write_text("swordfish too\n")
    (root / "notebooks" / "data.csv").write_text("a,b\n")
    return root


def call(
    cwd: Path, name: str, policy: PermissionPolicy, *, roots: tuple[Path, ...] = (), **fields: Any
) -> ToolResult:
    return ToolHarness(cwd, [*file_tools(), bash_tool()], policy=policy, roots=roots).call(name, **fields)


def test_an_absolute_deny_pattern_matches_a_file_shown_relative_to_the_working_directory(
    project: Path,
) -> None:
    policy = PermissionPolicy(deny=[Rule("Read", f"{project}/secret.txt")])
    result = call(project, "Read", policy, file_path="secret.txt")
    assert result.error_code == "DENIED"
    assert "swordfish" not in result.content


def test_an_absolute_any_depth_pattern_covers_a_notebook_folder_below_the_project(project: Path) -> None:
    """The notebook runs in `notebooks/`; the project's `Read(secret.txt)` arrives as `<project>/**/secret.txt`."""
    policy = PermissionPolicy(deny=[Rule("Read", f"{project}/**/secret.txt")])
    cwd = project / "notebooks"
    assert call(cwd, "Read", policy, roots=(project,), file_path="secret.txt").error_code == "DENIED"
    assert call(cwd, "Read", policy, roots=(project,), file_path="../secret.txt").error_code == "DENIED"
    assert not call(cwd, "Read", policy, roots=(project,), file_path="data.csv").is_error


def test_an_absolute_deny_pattern_hides_the_file_from_a_wider_search(project: Path) -> None:
    policy = PermissionPolicy(deny=[Rule("Read", f"{project}/**/secret.txt")])
    result = call(project, "Grep", policy, pattern="swordfish", output_mode="content")
    assert result.content.startswith("No matches for 'swordfish'")
    assert "[2 paths were hidden by a deny rule.]" in result.content


def test_an_absolute_deny_pattern_matches_through_a_symlink(project: Path) -> None:
    (project / "link.txt").symlink_to(project / "secret.txt")
    policy = PermissionPolicy(deny=[Rule("Read", f"{project}/secret.txt")])
    assert call(project, "Read", policy, file_path="link.txt").error_code == "DENIED"


def test_an_absolute_allow_pattern_does_not_allow_a_symlink_out_of_it(project: Path) -> None:
    (project / "ci").mkdir()
    (project / "notebooks" / "out").symlink_to(project / "ci")
    policy = PermissionPolicy(allow=[Rule("Edit", f"{project}/notebooks/**")])
    result = call(project, "Write", policy, file_path="notebooks/out/deploy.sh", content="x")
    assert result.error_code == "DENIED"  # it asked, and nobody was there to approve
    assert not (project / "ci" / "deploy.sh").exists()
    assert not call(project, "Write", policy, file_path="notebooks/new.txt", content="x").is_error


@pytest.mark.parametrize(
    "path",
    [".claude/settings.json", "sub/.claude/hooks/pre.sh", ".claude.json", ".jupyter_agent/AGENTS.md"],
)
def test_claude_settings_and_the_users_agent_files_are_protected_paths(project: Path, path: str) -> None:
    policy = PermissionPolicy(mode="acceptEdits", allow=[Rule("Write")])
    result = call(project, "Write", policy, file_path=path, content="{}")
    assert result.error_code == "DENIED"
    assert "protected path" in result.content
    assert not (project / path).exists()
    assert any(p in DEFAULT_PROTECTED_PATHS for p in (".claude/**", ".claude.json", ".jupyter_agent/**"))


def test_a_scope_refuses_a_tool_it_does_not_name_and_says_whose_scope_it_is(project: Path) -> None:
    scope = ToolScope(rules=(Rule("Read"), Rule("Grep")), owner="the skill 'summarize'")
    policy = PermissionPolicy(mode="bypassPermissions", scope=scope)
    refused = call(project, "Write", policy, file_path="new.txt", content="x")
    assert refused.error_code == "DENIED"
    assert "outside the allowed-tools of the skill 'summarize' (Read, Grep)" in refused.content
    assert not (project / "new.txt").exists()
    assert not call(project, "Read", policy, file_path="secret.txt").is_error


def test_a_scope_never_allows_what_the_mode_would_ask_for(project: Path) -> None:
    policy = PermissionPolicy(scope=ToolScope(rules=(Rule("Write"),), owner="the command /notes"))
    result = call(project, "Write", policy, file_path="new.txt", content="x")
    assert result.error_code == "DENIED"
    assert "no one is there to approve" in result.content


def test_a_command_scope_covers_a_compound_command_only_when_every_part_is_covered(project: Path) -> None:
    scope = ToolScope(rules=(Rule("Bash", "git status*"),), owner="the command /status")
    policy = PermissionPolicy(mode="bypassPermissions", scope=scope)
    refused = call(project, "Bash", policy, command="git status && rm -f secret.txt")
    assert refused.error_code == "DENIED"
    assert (project / "secret.txt").exists()
