"""PermissionRequest and Notification hooks, through the real Dispatcher and file tools: a hook may answer the
question about to be asked — its `allow` only the question the mode asks (never a protected path, an ask rule,
a look at a credential), its `deny` and its exit code 2 always — and Notification is told when the user is asked.
Also `permissionDecision: "defer"` and `async` hooks."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import Approvals, ToolHarness

from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.builtin_tools.kernel import kernel_tools
from jupyter_agent.builtin_tools.workflow.question import AskUserQuestion
from jupyter_agent.tools.command_hooks import CommandHook, CommandHooks, HookEvent, HookSession
from jupyter_agent.tools.dispatch import Approve, Reject
from jupyter_agent.tools.hooks import Hooks
from jupyter_agent.tools.question import Question
from jupyter_agent.tools.scope import RuleGranted


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "project"
    (root / ".claude").mkdir(parents=True)
    return root


def answering(decision: dict[str, object]) -> str:
    """A PermissionRequest hook that records its input and answers `decision`."""
    output = json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}})
    return f"cat > permission.json; echo '{output}'"


def wired(
    project: Path, *hooks: tuple[HookEvent, str, str], background: bool = False
) -> tuple[Hooks, list[str]]:
    told: list[str] = []
    made = [
        CommandHook(event=e, matcher=m, command=c, cwd=project, timeout=10, background=background)
        for e, m, c in hooks
    ]
    session = HookSession(session_id="s1", transcript_path="", cwd=str(project), permission_mode="default")
    wired_hooks = Hooks()
    commands = CommandHooks(made, session=lambda: session, report=told.append, halted=wired_hooks.halted)
    wired_hooks.pre_tool_use.append(commands.pre_tool_use)
    wired_hooks.post_tool_use.append(commands.post_tool_use)
    wired_hooks.events.append(commands.fire)
    return wired_hooks, told


def test_a_permission_request_allow_answers_the_modes_question(project: Path) -> None:
    hooks, _ = wired(project, ("PermissionRequest", "Write", answering({"behavior": "allow"})))
    asked = Approvals(Reject(message="no"))
    tools = ToolHarness(project, file_tools(), hooks=hooks, approver=asked)
    result = tools.call("Write", file_path="notes.md", content="x\n")
    assert not result.is_error, result.content
    assert asked.requests == [] and (project / "notes.md").read_text() == "x\n"
    event = json.loads((project / "permission.json").read_text())
    assert event["hook_event_name"] == "PermissionRequest" and event["tool_name"] == "Write"
    assert event["tool_input"]["file_path"] == str(project / "notes.md")
    assert event["permission_suggestions"] == [
        {"type": "addRules", "rules": [{"toolName": "Write"}], "behavior": "allow", "destination": "session"}
    ]


@pytest.mark.parametrize(
    ("path", "ask"), [(".claude/settings.local.json", ()), ("notes/a.md", ("Write(notes/**)",))]
)
def test_a_permission_request_allow_never_lifts_a_protected_path_or_an_ask_rule(
    project: Path, path: str, ask: tuple[str, ...]
) -> None:
    hooks, _ = wired(
        project,
        ("PermissionRequest", "*", answering({"behavior": "allow"})),
        ("Notification", "permission_prompt", "cat > notification.json"),
    )
    asked = Approvals(Reject(message="no"))
    tools = ToolHarness(project, file_tools(), mode="acceptEdits", hooks=hooks, approver=asked, ask=ask)
    result = tools.call("Write", file_path=path, content="{}")
    assert len(asked.requests) == 1 and result.error_code == "DENIED"
    assert not (project / path).exists()
    notified = json.loads((project / "notification.json").read_text())  # the user was asked: Notification
    assert notified["notification_type"] == "permission_prompt"
    assert notified["message"] == "Claude needs your permission to use Write"


def test_a_permission_request_allow_never_lifts_the_question_before_a_look_at_a_credential(
    project: Path,
) -> None:
    hooks, _ = wired(project, ("PermissionRequest", "*", answering({"behavior": "allow"})))
    asked = Approvals(Reject())
    namespace = {"db_password": "hunter2-very-secret"}
    tools = ToolHarness(project, kernel_tools(), hooks=hooks, approver=asked, namespace=namespace)
    result = tools.call("Inspect", name="db_password")
    assert len(asked.requests) == 1 and "hunter2" not in result.content


@pytest.mark.parametrize(
    "command",
    [
        answering({"behavior": "deny", "message": "no writes on Fridays"}),
        "echo 'no writes on Fridays' >&2; exit 2",
    ],
    ids=["deny", "exit 2"],
)
def test_a_permission_request_deny_refuses_without_asking(project: Path, command: str) -> None:
    hooks, _ = wired(project, ("PermissionRequest", "", command))
    asked = Approvals(Approve())
    tools = ToolHarness(project, file_tools(), hooks=hooks, approver=asked)
    result = tools.call("Write", file_path="notes.md", content="x\n")
    assert asked.requests == [] and result.error_code == "DENIED"
    assert "denied by a PermissionRequest hook: no writes on Fridays" in result.content
    assert not (project / "notes.md").exists()


def test_a_permission_request_interrupt_stops_the_agent(project: Path) -> None:
    hooks, _ = wired(
        project,
        ("PermissionRequest", "", answering({"behavior": "deny", "message": "stop", "interrupt": True})),
    )
    tools = ToolHarness(project, file_tools(), hooks=hooks, approver=Approvals(Approve()))
    assert tools.call("Write", file_path="notes.md", content="x\n").error_code == "DENIED"
    assert hooks.take_halt() == "stop"


def test_defer_leaves_the_call_to_the_rules_and_the_mode(project: Path) -> None:
    defer = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}})
    hooks, _ = wired(project, ("PreToolUse", "Write", f"echo '{defer}'"))
    asked = Approvals(Reject(message="no"))
    tools = ToolHarness(project, file_tools(), hooks=hooks, approver=asked)
    assert tools.call("Write", file_path="notes.md", content="x\n").error_code == "DENIED"
    assert len(asked.requests) == 1  # the default mode asked, as without the hook


def test_notification_exit_2_only_tells_the_user(project: Path) -> None:
    hooks, told = wired(project, ("Notification", "", "echo 'no desktop here' >&2; exit 2"))
    tools = ToolHarness(project, file_tools(), hooks=hooks, approver=Approvals(Approve()))
    assert not tools.call("Write", file_path="notes.md", content="x\n").is_error
    assert any(line.endswith(": no desktop here") for line in told)


def test_an_async_hook_runs_in_the_background_and_the_event_does_not_wait(project: Path) -> None:
    """The hook waits for a file the test writes only after the event returned: had the event waited for it,
    the hook would have timed out and never written `finished`."""
    waits = "while [ ! -f go ]; do sleep 0.05; done; cat > finished"
    made = CommandHook(event="SessionStart", command=waits, cwd=project, timeout=10, background=True)
    session = HookSession(session_id="s1", transcript_path="", cwd=str(project), permission_mode="default")
    commands = CommandHooks([made], session=lambda: session, report=lambda line: None)

    async def scenario() -> None:
        answer = await commands.fire("SessionStart", {"source": "startup"}, "startup")
        assert answer.context == "" and not (project / "finished").exists()
        (project / "go").write_text("")
        await commands.settle()

    asyncio.run(scenario())
    assert json.loads((project / "finished").read_text())["source"] == "startup"


def test_post_tool_use_failure_gets_the_error_and_post_tool_use_does_not(project: Path) -> None:
    hooks, _ = wired(
        project,
        ("PostToolUse", "Read", "cat > success.json"),
        ("PostToolUseFailure", "Read", "cat > failure.json"),
    )
    tools = ToolHarness(project, file_tools(), hooks=hooks)
    result = tools.call("Read", file_path="missing.txt")
    assert result.error_code == "FILE_NOT_FOUND" and not (project / "success.json").exists()
    event = json.loads((project / "failure.json").read_text())
    assert event["hook_event_name"] == "PostToolUseFailure" and event["error"] == result.content
    assert event["is_interrupt"] is False and event["tool_input"]["file_path"] == str(project / "missing.txt")


class Dismissing:
    """A person who sees the question and answers nothing."""

    def __init__(self) -> None:
        self.asked = 0

    async def ask(self, request: Question[Any]) -> Any:
        self.asked += 1
        return None


def test_notification_is_told_when_a_question_waits_for_the_user(project: Path) -> None:
    hooks, _ = wired(project, ("Notification", "idle_prompt", "cat > notification.json"))
    person = Dismissing()
    tools = ToolHarness(project, [AskUserQuestion()], hooks=hooks, asker=person)
    question = {"question": "Which file?", "header": "File", "multiSelect": False}
    options = [
        {"label": "a.csv", "description": "the raw data"},
        {"label": "b.csv", "description": "cleaned"},
    ]
    tools.call("AskUserQuestion", questions=[{**question, "options": options}])
    assert person.asked == 1
    notified = json.loads((project / "notification.json").read_text())
    assert (notified["notification_type"], notified["message"]) == (
        "idle_prompt",
        "Claude is waiting for your input",
    )


def test_a_permission_request_allow_never_reaches_a_refusal_of_the_mode(project: Path) -> None:
    """Plan mode refuses an edit outright: no question, so no PermissionRequest to answer it."""
    hooks, _ = wired(project, ("PermissionRequest", "*", answering({"behavior": "allow"})))
    tools = ToolHarness(project, file_tools(), mode="plan", hooks=hooks, approver=Approvals(Approve()))
    result = tools.call("Write", file_path="notes.md", content="x\n")
    assert result.error_code == "DENIED" and "plan mode" in result.content
    assert not (project / "notes.md").exists() and not (project / "permission.json").exists()


def test_a_permission_request_allow_runs_the_call_with_its_updated_input(project: Path) -> None:
    allow = {"behavior": "allow", "updatedInput": {"file_path": "notes.md", "content": "from the hook"}}
    hooks, _ = wired(
        project,
        ("PermissionRequest", "Write", answering(allow)),
        ("PostToolUse", "Write", "cat > post.json"),
    )
    asked = Approvals(Reject(message="no"))
    tools = ToolHarness(project, file_tools(), hooks=hooks, approver=asked)
    result = tools.call("Write", file_path="notes.md", content="from the model\n")
    assert not result.is_error, result.content
    assert asked.requests == [] and (project / "notes.md").read_text() == "from the hook"
    assert json.loads((project / "post.json").read_text())["tool_input"]["content"] == "from the hook"


@pytest.mark.parametrize(
    ("updated", "why"),
    [
        (
            {"file_path": ".claude/settings.local.json", "content": "{}"},
            "not run with the PermissionRequest hook",
        ),
        ({"file_path": "secret.txt", "content": "x"}, "denied by the rule"),
        ({"file_path": "notes.md"}, "updatedInput is not valid"),
    ],
    ids=["protected path", "deny rule", "invalid"],
)
def test_a_permission_request_updated_input_is_judged_again_and_never_lifts_a_protection(
    project: Path, updated: dict[str, object], why: str
) -> None:
    allow = {
        "behavior": "allow",
        "updatedInput": updated,
        "updatedPermissions": [{"type": "addRules", "rules": [{"toolName": "Write"}], "behavior": "allow"}],
    }
    hooks, _ = wired(project, ("PermissionRequest", "Write", answering(allow)))
    asked = Approvals(Approve())
    tools = ToolHarness(project, file_tools(), hooks=hooks, approver=asked, deny=("Write(secret.txt)",))
    result = tools.call("Write", file_path="notes.md", content="from the model\n")
    assert result.error_code == "DENIED" and why in result.content, result.content
    assert asked.requests == [] and not (project / "notes.md").exists()
    assert (
        not (project / ".claude" / "settings.local.json").exists() and not (project / "secret.txt").exists()
    )
    assert tools.policy.allow == []  # the refused call's rules are not added


def test_a_permission_request_allow_adds_its_rules_and_says_what_it_does_not_apply(project: Path) -> None:
    updates = [
        {
            "type": "addRules",
            "rules": [{"toolName": "Write", "ruleContent": "notes/**"}],
            "behavior": "allow",
            "destination": "session",
        },
        {
            "type": "addRules",
            "rules": [{"toolName": "Edit"}],
            "behavior": "allow",
            "destination": "localSettings",
        },
        {
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "rm:*"}],
            "behavior": "deny",
            "destination": "session",
        },
        {"type": "setMode", "mode": "bypassPermissions", "destination": "session"},
        {"type": "addDirectories", "directories": ["/"], "destination": "session"},
    ]
    hooks, told = wired(
        project,
        ("PermissionRequest", "Write", answering({"behavior": "allow", "updatedPermissions": updates})),
    )
    tools = ToolHarness(project, file_tools(), hooks=hooks, approver=Approvals(Reject(message="no")))
    assert not tools.call("Write", file_path="a.md", content="x\n").is_error
    assert [str(r) for r in tools.policy.allow] == ["Write(notes/**)", "Edit"]
    assert [str(r) for r in tools.policy.deny] == ["Bash(rm:*)"]
    assert tools.policy.mode == "default"
    granted = [(str(c.rule), c.in_project) for c in tools.ctx.run.changes if isinstance(c, RuleGranted)]
    assert granted == [("Write(notes/**)", False), ("Edit", True)]
    assert [line.split(": ", 2)[1:] for line in told] == [
        [
            "updatedPermissions[3]",
            "setMode not applied (a hook may only add rules; it never widens the mode, "
            "the directories or the rules you set)",
        ],
        [
            "updatedPermissions[4]",
            "addDirectories not applied (a hook may only add rules; it never widens the "
            "mode, the directories or the rules you set)",
        ],
    ]
