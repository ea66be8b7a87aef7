"""Claude Code settings files as a project carries them: rules with their path anchors and sources, precedence,
one warning per key that cannot be used, trust, and files read again when they change."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from project_tree import Tree

from jupyter_agent.project import ClaudeProject
from jupyter_agent.project.anchors import anchored_pattern, effective_rule
from jupyter_agent.project.setup import project_setup

ANCHORS = {"base": Path("/p/sub"), "project_dir": Path("/p"), "home": Path("/h")}


@pytest.mark.parametrize(
    ("written", "means"),
    [
        pytest.param("//etc/hosts", "/etc/hosts", id="// is absolute"),
        pytest.param("~/.ssh/**", "/h/.ssh/**", id="~/ is the home directory"),
        pytest.param("/src/**/*.ts", "/p/sub/src/**/*.ts", id="/ is relative to the settings file"),
        pytest.param("./secret.txt", "/p/secret.txt", id="./ is relative to the project"),
        pytest.param("secret.txt", "/p/**/secret.txt", id="a bare name is at any depth"),
        pytest.param("src/**", "/p/src/**", id="a slash in the middle anchors at the project"),
        pytest.param("build/", "/p/**/build/**", id="a trailing slash is the directory and what is in it"),
        pytest.param("**", "**", id="everything stays everything"),
    ],
)
def test_claude_codes_path_anchors_become_absolute_patterns(written: str, means: str) -> None:
    assert anchored_pattern(written, **ANCHORS) == means


def test_only_path_rules_are_anchored() -> None:
    assert effective_rule("Bash(git diff:*)", **ANCHORS) == "Bash(git diff:*)"
    assert effective_rule("WebFetch(domain:docs.python.org)", **ANCHORS) == "WebFetch(domain:docs.python.org)"
    assert effective_rule("Read", **ANCHORS) == "Read"
    assert effective_rule("Edit(notes.md)", **ANCHORS) == "Edit(/p/**/notes.md)"


def test_a_project_path_with_glob_characters_is_matched_literally(tree: Tree) -> None:
    odd = tree.project.parent / "we*ird?"
    (odd / ".git").mkdir(parents=True)
    rule = effective_rule("Read(secret.txt)", base=odd, project_dir=odd, home=tree.home)
    assert rule == f"Read({tree.project.parent}/we\\*ird\\?/**/secret.txt)"


def test_rules_come_from_every_file_each_with_its_source(tree: Tree) -> None:
    user = tree.user_settings({"permissions": {"deny": ["Bash(rm:*)"]}})
    shared = tree.settings({"permissions": {"deny": ["Read(secret.txt)"], "ask": ["Bash(git push:*)"]}})
    local = tree.settings({"permissions": {"deny": ["Edit(/ci/**)"]}}, "settings.local.json")
    settings = tree.claude().settings
    assert [(r.text, r.source) for r in settings.rules("deny")] == [
        ("Bash(rm:*)", user),
        ("Read(secret.txt)", shared),
        ("Edit(/ci/**)", local),
    ]
    assert [r.effective for r in settings.rules("deny")][1:] == [
        f"Read({tree.project}/**/secret.txt)",
        f"Edit({tree.project}/ci/**)",
    ]
    assert [r.text for r in settings.rules("ask")] == ["Bash(git push:*)"]


def test_the_most_specific_file_chooses_the_default_mode(tree: Tree) -> None:
    tree.user_settings({"permissions": {"defaultMode": "plan"}})
    assert tree.claude().settings.default_mode == "plan"
    tree.claude().trust()
    tree.settings({"permissions": {"defaultMode": "acceptEdits"}})
    assert tree.claude().settings.default_mode == "acceptEdits"
    tree.settings({"permissions": {"defaultMode": "default"}}, "settings.local.json")
    assert tree.claude().settings.default_mode == "default"


def test_a_deeper_directory_wins_over_the_project_directory(tree: Tree) -> None:
    tree.claude().trust()
    tree.settings({"permissions": {"defaultMode": "plan"}})
    notebooks = tree.project / "notebooks"
    tree.write("notebooks/.claude/settings.json", {"permissions": {"defaultMode": "acceptEdits"}})
    assert tree.claude(notebooks).settings.default_mode == "acceptEdits"
    assert tree.claude(tree.project).settings.default_mode == "plan"


def test_a_file_that_is_not_json_is_one_warning_and_the_others_load(tree: Tree) -> None:
    broken = tree.settings('{"permissions": {"deny": ["Read(a)"],}')
    tree.settings({"permissions": {"deny": ["Read(b)"]}}, "settings.local.json")
    claude = tree.claude()
    assert [r.text for r in claude.settings.rules("deny")] == ["Read(b)"]
    (warning,) = claude.take_warnings()
    assert warning.startswith(f"jupyter_agent: {broken}: (file): not valid JSON (line 1, column ")
    assert warning.endswith("it was not loaded")


def test_a_bad_value_is_one_warning_naming_file_and_key_and_the_rest_of_the_file_loads(tree: Tree) -> None:
    path = tree.settings(
        {
            "permissions": {
                "allow": ["Read", "Bash(", 42],
                "deny": "Read(secret.txt)",
                "ask": ["Bash(git push:*)"],
                "defaultMode": "yolo",
                "additionalDirectories": ["../nowhere"],
            },
            "hooks": {
                "PreToolUse": [{"matcher": "(", "hooks": []}, {"hooks": [{"type": "websocket", "url": "x"}]}],
                # Claude Code runs no prompt hook at SessionStart
                "SessionStart": [{"hooks": [{"type": "prompt", "prompt": "x"}]}],
                "WorktreeCreate": [],
                "OnSave": [],
            },
            "model": "opus",
        }
    )
    claude = tree.claude()
    claude.trust()
    lines = claude.take_warnings()
    assert lines == [
        f"jupyter_agent: {path}: permissions.allow[2]: expected a string, got int; skipped",
        f"jupyter_agent: {path}: permissions.allow[1]: invalid permission rule 'Bash('; write Tool or "
        "Tool(pattern), e.g. Edit(src/**) or Bash(git status*); skipped",
        f"jupyter_agent: {path}: permissions.deny: expected a list of strings, got str; ignored",
        f"jupyter_agent: {path}: permissions.defaultMode: 'yolo' is not a mode here (default, acceptEdits, plan, "
        "dontAsk, bypassPermissions); ignored",
        f"jupyter_agent: {path}: permissions.additionalDirectories[0]: {tree.project}/../nowhere is not a "
        "directory; skipped",
        f"jupyter_agent: {path}: hooks.PreToolUse[0].matcher: '(' is not a tool name or a regular expression "
        "(missing ), unterminated subpattern at position 0); skipped",
        f"jupyter_agent: {path}: hooks.PreToolUse[1].hooks[0].type: 'websocket' hooks are not run here (only "
        "'command', 'prompt' and 'http' hooks are); skipped",
        f"jupyter_agent: {path}: hooks.SessionStart[0].hooks[0].type: prompt hooks run for PermissionRequest, "
        "PostToolUse, PostToolUseFailure, PreToolUse, Stop, SubagentStop, UserPromptSubmit, not SessionStart; "
        "skipped",
        f"jupyter_agent: {path}: hooks.WorktreeCreate: never fired here (this package does not make git "
        "worktrees); ignored",
        f"jupyter_agent: {path}: hooks.OnSave: not an event of Claude Code's hooks reference; ignored",
    ]
    settings = claude.settings
    assert [r.text for r in settings.rules("allow")] == ["Read"]
    assert [r.text for r in settings.rules("ask")] == ["Bash(git push:*)"]
    assert claude.take_warnings() == []  # each line once


def test_an_untrusted_project_gets_its_deny_and_ask_rules_only(tree: Tree) -> None:
    settings_path = tree.settings(
        {
            "permissions": {
                "allow": ["Bash"],
                "deny": ["Read(secret.txt)"],
                "ask": ["Edit"],
                "defaultMode": "acceptEdits",
                "additionalDirectories": ["/"],
            },
            "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "touch pwned"}]}]},
        }
    )
    claude = tree.claude()
    setup = project_setup(claude)
    assert [str(r) for r in setup.deny] == [f"Read({tree.project}/**/secret.txt)"]
    assert [str(r) for r in setup.ask] == ["Edit"]
    assert setup.allow == [] and setup.hooks == () and setup.roots == () and setup.default_mode is None
    assert [r.text for r in claude.settings.waiting()] == ["Bash"]
    assert claude.take_warnings() == [
        f"jupyter_agent: {settings_path}: hooks, allow rules, defaultMode, additionalDirectories, enabledPlugins, "
        f"env, outputStyle and MCP server approvals are not applied until you trust this project ({tree.project}): run %agent trust (deny and ask rules apply)"
    ]
    said = claude.trust()
    assert said.startswith(
        f"trusted {tree.project} (recorded in {tree.home}/.jupyter_agent/trusted_projects.json)"
    )
    setup = project_setup(claude)
    assert [str(r) for r in setup.allow] == ["Bash"]
    assert len(setup.hooks) == 1 and setup.default_mode == "acceptEdits" and setup.roots == (Path("/"),)


def test_a_folder_claude_code_trusts_is_trusted_here(tree: Tree) -> None:
    tree.write(
        ".claude.json",
        {"projects": {str(tree.project.parent): {"hasTrustDialogAccepted": True}}},
        base=tree.home,
    )
    tree.settings({"permissions": {"allow": ["Bash"]}})
    assert tree.claude().settings.trusted == "Claude Code"
    assert [r.text for r in tree.claude().settings.rules("allow")] == ["Bash"]


def test_a_user_settings_file_is_the_users_own_and_always_applies(tree: Tree) -> None:
    tree.user_settings({"permissions": {"allow": ["Bash(git status)"], "defaultMode": "bypassPermissions"}})
    settings = tree.claude().settings
    assert settings.trusted is None
    assert [r.text for r in settings.rules("allow")] == ["Bash(git status)"]
    assert settings.default_mode == "bypassPermissions"


def test_bypass_permissions_is_never_taken_from_a_project(tree: Tree) -> None:
    path = tree.settings({"permissions": {"defaultMode": "bypassPermissions"}})
    claude = tree.claude()
    claude.trust()
    assert claude.settings.default_mode is None
    assert claude.take_warnings() == [
        f"jupyter_agent: {path}: permissions.defaultMode: bypassPermissions is not taken from a project's "
        "settings (choose it yourself: %agent mode bypassPermissions); ignored"
    ]


def test_a_changed_settings_file_is_read_again(tree: Tree) -> None:
    path = tree.settings({"permissions": {"deny": ["Read(a.txt)"]}})
    claude = tree.claude()
    assert [r.text for r in claude.settings.rules("deny")] == ["Read(a.txt)"]
    path.write_text(json.dumps({"permissions": {"deny": ["Read(a.txt)", "Read(b.txt)"]}}))
    os.utime(path, ns=(1, 1))  # a different signature even within one clock tick
    assert [r.text for r in claude.settings.rules("deny")] == ["Read(a.txt)", "Read(b.txt)"]


def test_the_home_directorys_claude_folder_is_never_read_as_a_projects(tree: Tree) -> None:
    (tree.home / ".git").mkdir()
    tree.user_settings({"permissions": {"deny": ["Read(x)"]}})
    notebooks = tree.home / "work"
    notebooks.mkdir()
    claude = ClaudeProject.at(notebooks, [notebooks], home=tree.home)
    assert [r.text for r in claude.settings.rules("deny")] == ["Read(x)"]
