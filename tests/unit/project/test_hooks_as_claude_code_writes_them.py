"""Hooks written in settings files the way Claude Code's documentation shows them, read by the settings reader
and run through the one Dispatcher: `*` matches every tool, and `updatedInput` keeps the `allow` or `ask` it
comes with."""

from __future__ import annotations

import json
from typing import Any

import pytest
from dispatch_harness import Approvals, ToolHarness
from project_tree import Tree

from jupyter_agent.base.result import ToolResult
from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.permissions.modes import Mode
from jupyter_agent.tools.command_hooks import CommandHooks, HookSession
from jupyter_agent.tools.dispatch import ApprovalRequest, Reject
from jupyter_agent.tools.hooks import Hooks


def run_call(
    tree: Tree, name: str, fields: dict[str, Any], *, mode: Mode = "default"
) -> tuple[ToolResult, list[ApprovalRequest]]:
    """The call dispatched with the hooks the project's settings give; every question is recorded and refused."""
    claude = tree.claude()
    claude.trust()
    assert claude.take_warnings() == []
    session = HookSession(session_id="s1", transcript_path="", cwd=str(tree.project), permission_mode=mode)
    command = CommandHooks(claude.settings.hooks, session=lambda: session, report=lambda _: None)
    refuse = Approvals(Reject(message="refused by the test"))
    hooks = Hooks(pre_tool_use=[command.pre_tool_use], post_tool_use=[command.post_tool_use])
    tools = ToolHarness(tree.project, file_tools(), mode=mode, hooks=hooks, approver=refuse)
    result = tools.call(name, fields)
    asked = refuse.requests
    return result, asked


@pytest.mark.parametrize(
    "group", [{"matcher": "*"}, {"matcher": ""}, {}], ids=["star", "empty", "no matcher"]
)
def test_a_user_hook_with_the_match_everything_matcher_loads_and_runs_for_every_tool(
    tree: Tree, group: dict[str, str]
) -> None:
    """Claude Code's documentation: "Use `*` to match all tools"; it was refused as a bad regular expression."""
    tree.write("notes.txt", "hello\n")
    log = tree.project / "post.log"
    hook = {"type": "command", "command": f'echo "$CLAUDE_PROJECT_DIR" >> {log}'}
    tree.user_settings({"hooks": {"PostToolUse": [{**group, "hooks": [hook]}]}})
    result, _ = run_call(tree, "Read", {"file_path": "notes.txt"})
    assert not result.is_error, result.content
    assert log.read_text() == f"{tree.project}\n"


def write_hook(tree: Tree, output: dict[str, Any]) -> None:
    tree.settings(
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Write",
                        "hooks": [{"type": "command", "command": f"echo '{json.dumps(output)}'"}],
                    }
                ]
            }
        }
    )


def test_updated_input_with_allow_runs_the_new_input_without_asking(tree: Tree) -> None:
    write_hook(
        tree,
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": "normalised by the hook",
                "updatedInput": {"file_path": "clean.txt", "content": "CLEAN"},
            }
        },
    )
    result, asked = run_call(tree, "Write", {"file_path": "raw.txt", "content": "raw"})
    assert not result.is_error, result.content
    assert asked == []
    assert (tree.project / "clean.txt").read_text() == "CLEAN"
    assert not (tree.project / "raw.txt").exists()


def test_updated_input_with_ask_asks_about_the_new_input_even_where_the_mode_allows(tree: Tree) -> None:
    write_hook(
        tree,
        {
            "hookSpecificOutput": {
                "permissionDecision": "ask",
                "permissionDecisionReason": "check the rewritten path",
                "updatedInput": {"file_path": "clean.txt", "content": "CLEAN"},
            }
        },
    )
    result, asked = run_call(tree, "Write", {"file_path": "raw.txt", "content": "raw"}, mode="acceptEdits")
    assert result.error_code == "DENIED"
    assert [(a.input["file_path"], a.reason) for a in asked] == [("clean.txt", "check the rewritten path")]
    assert not (tree.project / "clean.txt").exists() and not (tree.project / "raw.txt").exists()


def test_updated_input_alone_leaves_the_question_to_the_mode(tree: Tree) -> None:
    write_hook(tree, {"hookSpecificOutput": {"updatedInput": {"file_path": "clean.txt", "content": "CLEAN"}}})
    result, asked = run_call(tree, "Write", {"file_path": "raw.txt", "content": "raw"})
    assert result.error_code == "DENIED"
    assert [a.input["file_path"] for a in asked] == ["clean.txt"]


def test_prompt_async_and_if_keys_are_read_as_claude_code_writes_them(tree: Tree) -> None:
    prompt = {"type": "prompt", "prompt": "Is $ARGUMENTS safe?", "model": "claude-haiku-4-5", "timeout": 15}
    background = {"type": "command", "command": "notify-send done", "async": True}
    guarded = {"type": "command", "command": "sh lint.sh", "if": "Bash(git commit:*)"}
    tree.user_settings(
        {
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [prompt, guarded]}],
                "Notification": [{"matcher": "permission_prompt", "hooks": [background]}],
            }
        }
    )
    claude = tree.claude()
    assert claude.take_warnings() == []
    asks, lint, notify = claude.settings.hooks
    assert (asks.kind, asks.prompt, asks.model, asks.timeout) == (
        "prompt",
        "Is $ARGUMENTS safe?",
        "claude-haiku-4-5",
        15,
    )
    assert lint.when is not None and str(lint.when) == "Bash(git commit:*)" and not lint.background
    assert notify.event == "Notification" and notify.matcher == "permission_prompt" and notify.background
