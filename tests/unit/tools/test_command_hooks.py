"""Claude Code's command hooks: real shell commands, the event as JSON on stdin, exit code 2 and JSON output,
timeouts — through the real Dispatcher and file tools."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import Approvals, ToolHarness

from jupyter_agent.base.result import ToolResult
from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.permissions.modes import Mode
from jupyter_agent.tools.command_hooks import CommandHook, CommandHooks, HookEvent, HookSession
from jupyter_agent.tools.dispatch import Approve
from jupyter_agent.tools.hooks import HookCall, Hooks, PromptBlocked, PromptContext


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "project"
    root.mkdir()
    (root / "notes.txt").write_text("hello\n")
    return root


class Told:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append(line)


def hooks_of(
    project: Path, *hooks: tuple[HookEvent, str, str], timeout: float = 10.0
) -> tuple[CommandHooks, Told]:
    told = Told()
    made = [
        CommandHook(
            event=event,
            matcher=matcher,
            command=command,
            timeout=timeout,
            source="settings.json",
            cwd=project,
        )
        for event, matcher, command in hooks
    ]
    session = HookSession(session_id="s1", transcript_path="", cwd=str(project), permission_mode="default")
    return CommandHooks(made, session=lambda: session, report=told), told


def dispatch(
    project: Path, command_hooks: CommandHooks, name: str, *, mode: Mode = "default", **fields: Any
) -> ToolResult:
    hooks = Hooks(pre_tool_use=[command_hooks.pre_tool_use], post_tool_use=[command_hooks.post_tool_use])
    tools = ToolHarness(project, file_tools(), mode=mode, hooks=hooks, approver=Approvals(Approve()))
    return tools.call(name, call_id="toolu_7", **fields)


def test_the_event_arrives_as_json_on_stdin_in_the_project_directory(project: Path) -> None:
    command = 'cat > "$CLAUDE_PROJECT_DIR/event.json"; pwd > where.txt'
    hooks, _ = hooks_of(project, ("PreToolUse", "Read", command))
    assert not dispatch(project, hooks, "Read", file_path="notes.txt").is_error
    event = json.loads((project / "event.json").read_text())
    assert event["hook_event_name"] == "PreToolUse"
    assert event["tool_name"] == "Read"
    assert event["tool_input"]["file_path"] == str(project / "notes.txt")  # absolute, as Claude Code sends it
    assert event["tool_use_id"] == "toolu_7"
    assert event["session_id"] == "s1" and event["permission_mode"] == "default"
    assert (project / "where.txt").read_text().strip() == str(project)


def test_exit_code_2_blocks_the_call_and_its_stderr_reaches_the_model(project: Path) -> None:
    hooks, _ = hooks_of(
        project, ("PreToolUse", "Write|Edit", "echo 'notes are read-only, write to drafts/' >&2; exit 2")
    )
    result = dispatch(project, hooks, "Write", mode="acceptEdits", file_path="new.txt", content="x")
    assert result.error_code == "DENIED"
    assert "notes are read-only, write to drafts/" in result.content
    assert not (project / "new.txt").exists()


def test_a_matcher_that_names_another_tool_leaves_the_call_alone(project: Path) -> None:
    hooks, _ = hooks_of(project, ("PreToolUse", "Bash", "exit 2"))
    assert not dispatch(project, hooks, "Read", file_path="notes.txt").is_error


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        pytest.param(
            {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}},
            "DENIED",
            id="permissionDecision deny",
        ),
        pytest.param({"decision": "block", "reason": "no"}, "DENIED", id="legacy decision block"),
        pytest.param(
            {"hookSpecificOutput": {"permissionDecision": "allow"}}, None, id="permissionDecision allow"
        ),
        pytest.param({"decision": "approve"}, None, id="legacy decision approve"),
    ],
)
def test_json_output_decides(project: Path, output: dict[str, Any], expected: str | None) -> None:
    """Default mode would ask for Write; the approver here never says no, so only a hook's deny refuses."""
    hooks, _ = hooks_of(project, ("PreToolUse", "*", f"echo '{json.dumps(output)}'"))
    result = dispatch(project, hooks, "Write", file_path="new.txt", content="x")
    assert result.error_code == expected, result.content
    assert (project / "new.txt").exists() == (expected is None)


def test_an_allow_from_a_hook_runs_the_call_without_asking(project: Path) -> None:
    hooks, _ = hooks_of(
        project, ("PreToolUse", "*", """echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'""")
    )
    tools = ToolHarness(project, file_tools(), hooks=Hooks(pre_tool_use=[hooks.pre_tool_use]))
    result = tools.call("Write", file_path="new.txt", content="x")
    assert not result.is_error, result.content  # the default approver refuses: nobody was asked


def test_updated_input_replaces_the_input(project: Path) -> None:
    output = {"hookSpecificOutput": {"updatedInput": {"file_path": "drafts.txt", "content": "rewritten"}}}
    hooks, _ = hooks_of(project, ("PreToolUse", "Write", f"echo '{json.dumps(output)}'"))
    dispatch(project, hooks, "Write", mode="acceptEdits", file_path="new.txt", content="x")
    assert (project / "drafts.txt").read_text() == "rewritten"
    assert not (project / "new.txt").exists()


def test_a_hook_that_times_out_is_stopped_and_the_call_goes_on(project: Path) -> None:
    hooks, told = hooks_of(project, ("PreToolUse", "*", "sleep 30; exit 2"), timeout=0.5)
    result = dispatch(project, hooks, "Read", file_path="notes.txt")
    assert not result.is_error
    assert told.lines == [
        "PreToolUse hook `sleep 30; exit 2` (settings.json) failed: it timed out after 0.5 s and was stopped; "
        "the agent went on without it"
    ]


def test_another_exit_code_is_a_failure_the_user_is_told_about(project: Path) -> None:
    hooks, told = hooks_of(project, ("PreToolUse", "*", "echo oops >&2; exit 1"))
    assert not dispatch(project, hooks, "Read", file_path="notes.txt").is_error
    assert told.lines == [
        "PreToolUse hook `echo oops >&2; exit 1` (settings.json) failed: it exited with code 1: oops; "
        "the agent went on without it"
    ]


def test_what_a_hook_prints_to_the_user_is_masked(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOK_API_TOKEN", "tok-9a8b7c6d5e4f")
    hooks, told = hooks_of(project, ("PreToolUse", "*", "echo 'token tok-9a8b7c6d5e4f' >&2; exit 3"))
    dispatch(project, hooks, "Read", file_path="notes.txt")
    assert "tok-9a8b7c6d5e4f" not in told.lines[0] and "[redacted: HOOK_API_TOKEN]" in told.lines[0]


def test_post_tool_use_feedback_is_added_to_what_the_model_reads(project: Path) -> None:
    hooks, _ = hooks_of(
        project,
        ("PostToolUse", "Read", "cat > response.json; echo 'remember: notes.txt is generated' >&2; exit 2"),
    )
    result = dispatch(project, hooks, "Read", file_path="notes.txt")
    assert "hello" in result.content
    assert result.content.endswith("[PostToolUse hook feedback: remember: notes.txt is generated]")
    event = json.loads((project / "response.json").read_text())
    file = event["tool_response"]["file"]  # Read's response, in Claude Code's shape
    assert event["tool_response"]["type"] == "text" and "hello" in file["content"]
    assert file["filePath"] == str(project / "notes.txt")


def test_user_prompt_submit_blocks_with_its_reason_or_adds_what_it_prints(project: Path) -> None:
    blocking, _ = hooks_of(
        project,
        ("UserPromptSubmit", "", "grep -q deploy && { echo 'no deploys from here' >&2; exit 2; }; exit 0"),
    )
    assert asyncio.run(blocking.user_prompt_submit("deploy it")) == PromptBlocked(
        reason="no deploys from here"
    )
    assert asyncio.run(blocking.user_prompt_submit("explain it")) is None
    adding, _ = hooks_of(project, ("UserPromptSubmit", "", "echo 'The sprint ends Friday.'"))
    assert asyncio.run(adding.user_prompt_submit("plan")) == PromptContext(text="The sprint ends Friday.")


def test_stop_sends_the_model_back_with_the_reason_unless_a_stop_hook_already_did(project: Path) -> None:
    script = 'grep -q \'"stop_hook_active": true\' && exit 0; echo "run the tests first" >&2; exit 2'
    hooks, _ = hooks_of(project, ("Stop", "", script))
    assert asyncio.run(hooks.stop(False)) == "run the tests first"
    assert asyncio.run(hooks.stop(True)) is None


def test_the_same_command_twice_runs_once(project: Path) -> None:
    hooks, _ = hooks_of(
        project, ("PreToolUse", "Read", "echo x >> count.txt"), ("PreToolUse", "*", "echo x >> count.txt")
    )
    dispatch(project, hooks, "Read", file_path="notes.txt")
    assert (project / "count.txt").read_text() == "x\n"


def test_a_hook_call_carries_its_tool_use_id() -> None:
    assert HookCall(tool="Read", input={}, subject=None).tool_use_id == ""


def test_updated_tool_output_replaces_what_the_model_reads(project: Path) -> None:
    output = {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "(the notes, redacted)"}
    }
    hooks, _ = hooks_of(project, ("PostToolUse", "Read", f"echo '{json.dumps(output)}'"))
    result = dispatch(project, hooks, "Read", file_path="notes.txt")
    assert result.content == "(the notes, redacted)" and not result.is_error
    assert (project / "notes.txt").read_text() == "hello\n"


def test_pre_tool_use_additional_context_reaches_the_model_with_the_result(project: Path) -> None:
    output = {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "notes.txt is shared"}
    }
    hooks, _ = hooks_of(project, ("PreToolUse", "Read", f"echo '{json.dumps(output)}'"))
    result = dispatch(project, hooks, "Read", file_path="notes.txt")
    assert "hello" in result.content
    assert result.content.endswith("[PreToolUse hook context: notes.txt is shared]")
