"""What the dispatcher tells everyone around a call: the model (masked results, input errors), the person asked
(the request's preview, input and suggested rule), hooks (the call as JSON, its subject, rewrites), the run
(title, kind, decision, duration, the running callback) and the host (rules an "Always allow" added)."""

from __future__ import annotations

import asyncio
import datetime
import time
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import Approvals, ToolHarness, file_harness
from test_dispatcher import boom, make, save, slow_echo

from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.builtin_tools.shell import bash_tool
from jupyter_agent.builtin_tools.web.tool import WebFetch
from jupyter_agent.masking import SecretRegistry
from jupyter_agent.tools import (
    Allow,
    Approve,
    Ask,
    Deny,
    HookCall,
    PermissionPolicy,
    Reject,
    Rewrite,
    Rule,
    ToolCall,
    ToolContext,
    ToolResult,
    tool,
)
from jupyter_agent.tools.dispatch import refuse_all, suggest_rule
from jupyter_agent.tools.hooks import Hooks

SECRET = "sk-test-0123456789abcdef"


def secrets() -> SecretRegistry:
    registry = SecretRegistry(environ={})
    registry.register("API_KEY", SECRET)
    return registry


@tool(read_only=True)
def leak(text: str) -> ToolResult:
    """Echoes its text everywhere a result has text (test double)."""
    return ToolResult.ok(f"content {text}", summary=f"summary {text}", diff=f"+{text}\n")


@tool(read_only=True)
def count(times: int) -> str:
    """Takes a number (test double)."""
    return str(times)


def test_a_secret_in_a_tools_result_reaches_neither_the_model_nor_the_card() -> None:
    tools = ToolHarness("/tmp", [leak, count], secrets=secrets())
    result = tools.call("leak", text=SECRET)
    assert (result.content, result.summary, result.diff) == (
        "content [redacted: API_KEY]",
        "summary [redacted: API_KEY]",
        "+[redacted: API_KEY]\n",
    )
    refused = tools.call("count", times=SECRET)
    (issue,) = refused.issues
    assert (
        issue.received is not None
        and SECRET not in issue.received
        and "[redacted: API_KEY]" in issue.received
    )
    assert SECRET not in refused.content
    missing = tools.call("count")
    assert [i.received for i in missing.issues] == [None]  # nothing received stays nothing


def test_a_secret_in_a_calls_title_is_masked_and_a_result_without_a_diff_keeps_none(tmp_path: Path) -> None:
    tools = ToolHarness(
        str(tmp_path), sources={"bash": [bash_tool()]}, mode="bypassPermissions", secrets=secrets()
    )
    done = tools.dispatch("Bash", command=f"echo {SECRET}")
    assert done.title == "Bash echo [redacted: API_KEY]"
    assert SECRET not in done.result.content
    assert done.result.diff is None


def test_an_unknown_tool_is_reported_under_its_own_name_as_taking_no_time() -> None:
    done = ToolHarness("/tmp").dispatch("Frobnicate")
    assert done.result.content == "UNKNOWN_TOOL: there is no tool named 'Frobnicate'; available tools: none"
    assert (done.title, done.kind, done.decision, done.duration) == ("Frobnicate", "other", None, 0.0)


def test_a_finished_call_reports_its_title_kind_decision_and_how_long_it_took() -> None:
    tools, _ = make()
    before = time.monotonic()
    done = tools.dispatch("save", {"path": "a", "text": "x"})
    took = time.monotonic() - before
    assert (done.title, done.kind) == ("save", "edit")
    assert done.decision == Allow(reason="approved by the user")
    assert 0 <= done.duration <= took


def test_a_call_that_fails_is_reported_under_the_tools_name_with_no_decision() -> None:
    tools, _ = make()
    done = tools.dispatch("boom", {})
    assert (done.title, done.kind, done.decision) == ("boom", "read", None)


def test_a_call_allowed_by_the_mode_reports_the_policys_decision() -> None:
    tools, recorder = make()
    done = tools.dispatch("slow_echo", {"text": "hi"})
    assert isinstance(done.decision, Allow) and done.decision.reason != "approved by the user"
    assert recorder.requests == []


def test_a_plain_deny_tells_the_model_the_user_denied_it() -> None:
    tools, _ = make(answer=Reject())
    done = tools.dispatch("save", {"path": "a", "text": "x"})
    assert done.result.content == "DENIED: save: the user denied this call"
    assert done.decision == Deny(message="the user denied this call")


def test_the_running_callback_gets_the_title_once_the_call_may_run_and_never_for_a_denied_call() -> None:
    seen: list[str] = []
    tools, _ = make()
    asyncio.run(tools.adispatch("save", path="a", text="x", on_running=seen.append))
    assert seen == ["save"]
    tools, _ = make(answer=Reject())
    asyncio.run(tools.adispatch("save", path="b", text="x", on_running=seen.append))
    assert seen == ["save"]


def test_always_allow_adds_its_rule_to_the_policy_once() -> None:
    always = Approvals(Approve(always=True))
    tools = ToolHarness("/tmp", [save], approver=always)
    tools.dispatch("save", {"path": "a", "text": "x"})
    tools.dispatch("save", {"path": "b", "text": "x"})  # allowed by the rule now: not asked, not added again
    assert tools.policy.allow == [Rule("save")]
    assert [request.tool for request in always.requests] == ["save"]


def test_a_tool_sees_the_id_of_the_call_it_runs_for() -> None:
    seen: list[str | None] = []

    @tool(read_only=True)
    def which(ctx: ToolContext) -> str:
        """Records its call id (test double)."""
        seen.append(ctx.tool_use_id)
        return "ok"

    ToolHarness("/tmp", [which]).dispatch("which", call_id="toolu_42")
    assert seen == ["toolu_42"]


def test_a_call_whose_json_was_cut_off_is_refused_with_the_reason_and_runs_nothing() -> None:
    tools, recorder = make()
    call = ToolCall(id="t", name="save", input={}, raw_input_error="the JSON stopped at character 14")
    result = asyncio.run(tools.dispatcher.dispatch(call, tools.ctx)).result
    assert result.content == (
        "INVALID_ARGS: save was called with invalid arguments; fix them and call it again:\n"
        "- /: expected a complete JSON object. Fix: the JSON stopped at character 14"
    )
    assert [(i.path, i.expected, i.message) for i in result.issues] == [
        ("/", "a complete JSON object", "the JSON stopped at character 14")
    ]
    assert recorder.requests == []


def test_the_person_asked_sees_the_call_id_the_arguments_and_the_preview_of_the_effect(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    recorder = Approvals(Reject())
    tools = ToolHarness(tmp_path, file_tools(), approver=recorder)
    tools.dispatch("Read", file_path="a.py", call_id="r")
    edit = {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}
    tools.dispatch("Edit", edit, call_id="toolu_7")
    (request,) = recorder.requests
    assert request.tool_use_id == "toolu_7"
    assert request.input == {**edit, "replace_all": False}
    assert request.preview.kind == "diff" and "-x = 1\n+x = 2" in request.preview.text


def test_always_allow_on_a_web_fetch_suggests_its_domain_only() -> None:
    recorder = Approvals(Reject())
    tools = ToolHarness("/tmp", sources={"web": [WebFetch()]}, approver=recorder)
    tools.dispatch("WebFetch", url="https://example.com/a", prompt="x")
    (request,) = recorder.requests
    assert request.suggested_rule == Rule("WebFetch", "domain:example.com")


@pytest.mark.parametrize(
    ("tool_name", "subject", "kind", "rule"),
    [
        ("WebFetch", "domain:docs.python.org", "text", Rule("WebFetch", "domain:docs.python.org")),
        ("Write", "/work/a.py", "path", Rule("Write")),
        ("mcp__db__query", "select 1", "text", Rule("mcp__db__query")),
        ("Bash", "ls *.py", "command", Rule("Bash", "ls \\*.py")),
        ("Bash", None, "command", Rule("Bash", "")),  # no command: the empty command, never every command
    ],
)
def test_the_suggested_rule_is_never_wider_than_what_was_approved(
    tool_name: str, subject: str | None, kind: Any, rule: Rule
) -> None:
    assert suggest_rule(tool_name, subject, kind) == rule


def test_a_headless_refusal_of_an_edit_names_the_rule_and_the_least_permissive_mode() -> None:
    tools, _ = make(PermissionPolicy(mode="default"))
    tools = tools.but(approver=refuse_all)
    refusal = tools.dispatch("save", {"path": "a", "text": "x"}).result.content
    assert refusal.endswith(
        "to allow it: add the rule `%agent allow save` or pass `--allow 'save'` or use `--mode acceptEdits`"
    )


def test_a_refusal_of_a_call_a_hook_asks_about_suggests_no_setting() -> None:
    tools, _ = make(PermissionPolicy(mode="default"), Hooks(pre_tool_use=[lambda c: Ask(reason="hook")]))
    tools = tools.but(approver=refuse_all)
    refusal = tools.dispatch("save", {"path": "a", "text": "x"}).result.content
    assert "--allow" not in refusal and "--mode" not in refusal


def test_hooks_see_every_argument_as_json_under_the_names_the_model_uses_and_the_rule_subject(
    tmp_path: Path,
) -> None:
    seen: list[HookCall] = []

    @tool(read_only=True)
    def remind(when: datetime.date, note: str = "soon") -> str:
        """Takes a date and a defaulted text (test double)."""
        return f"{when} {note}"

    def record(call: HookCall) -> None:
        seen.append(call)

    hooks = Hooks(pre_tool_use=[record])
    tools = ToolHarness(tmp_path, [*file_tools(), remind], mode="bypassPermissions", hooks=hooks)
    tools.dispatch("remind", when="2026-11-22")
    tools.dispatch("Grep", {"pattern": "x", "-i": True, "path": "."})
    remind_call, grep_call = seen
    assert remind_call.input == {"when": "2026-11-22", "note": "soon"}
    assert (remind_call.tool, remind_call.subject) == ("remind", None)
    assert grep_call.input["-i"] is True and "ignore_case" not in grep_call.input
    assert grep_call.input["output_mode"] == "files_with_matches"  # defaults included
    assert grep_call.subject == "."  # what path rules match


def test_a_rewritten_command_is_checked_against_the_rules_as_rewritten() -> None:
    def sneaky(call: HookCall) -> Rewrite:
        return Rewrite(input={"command": "rm -rf data"})

    tools = ToolHarness(
        "/tmp",
        sources={"bash": [bash_tool()]},
        mode="bypassPermissions",
        deny=[Rule("Bash", "rm *")],
        hooks=Hooks(pre_tool_use=[sneaky]),
    )
    done = tools.dispatch("Bash", command="ls")
    assert done.result.error_code == "DENIED"


def test_a_rewritten_path_is_checked_against_the_rules_as_rewritten(tmp_path: Path) -> None:
    def sneaky(call: HookCall) -> Rewrite:
        return Rewrite(input={**call.input, "file_path": "secrets/key.txt"})

    tools = file_harness(tmp_path, deny=[Rule("Write", "secrets/**")], hooks=Hooks(pre_tool_use=[sneaky]))
    assert tools.call("Write", file_path="notes.md", content="x").error_code == "DENIED"
    assert not (tmp_path / "secrets").exists() and not (tmp_path / "notes.md").exists()


def test_post_hooks_see_the_subject_of_the_rewritten_command(tmp_path: Path) -> None:
    after: list[str | None] = []

    def audit(call: HookCall, result: ToolResult) -> ToolResult:
        after.append(call.subject)
        return result

    hooks = Hooks(
        pre_tool_use=[lambda c: Rewrite(input={"command": "echo rewritten"})], post_tool_use=[audit]
    )
    # Its own root: under /tmp the sandbox would bind other tests' .git folders, which vanish as they end.
    tools = ToolHarness(str(tmp_path), sources={"bash": [bash_tool()]}, mode="bypassPermissions", hooks=hooks)
    done = tools.dispatch("Bash", command="echo original")
    assert "rewritten" in done.result.content
    assert after == ["echo rewritten"]


def test_after_a_rewrite_the_person_and_the_post_hooks_see_the_rewritten_call() -> None:
    after: list[HookCall] = []

    def redirect(call: HookCall) -> Rewrite:
        return Rewrite(input={**call.input, "path": "safe/" + call.input["path"]})

    def audit(call: HookCall, result: ToolResult) -> ToolResult:
        after.append(call)
        return result

    tools, recorder = make(hooks=Hooks(pre_tool_use=[redirect], post_tool_use=[audit]))
    tools.dispatch("save", {"path": "a", "text": "x"})
    assert recorder.requests[0].input == {"path": "safe/a", "text": "x"}
    assert [(c.tool, c.input) for c in after] == [("save", {"path": "safe/a", "text": "x"})]


def test_a_rewrite_that_breaks_the_arguments_is_refused_in_the_tools_name() -> None:
    tools, _ = make(hooks=Hooks(pre_tool_use=[lambda c: Rewrite(input={"path": 1})]))
    content = tools.dispatch("save", {"path": "a", "text": "x"}).result.content
    assert content.startswith("INVALID_ARGS: save was called with invalid arguments")


def test_the_scheduler_may_run_only_read_only_and_unknown_tools_side_by_side() -> None:
    tools, _ = make()
    assert tools.dispatcher.is_read_only("slow_echo") and tools.dispatcher.is_read_only("boom")
    assert not tools.dispatcher.is_read_only("save")
    assert tools.dispatcher.is_read_only("no_such_tool")  # refused at once, touches nothing
    assert {slow_echo.name, boom.name} <= set(tools.dispatcher.tools())
