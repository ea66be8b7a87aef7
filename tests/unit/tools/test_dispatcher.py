"""The dispatcher: hooks, approvals, always-allow, and that nothing a tool does escapes as an exception."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from typing import Any

import pytest
from dispatch_harness import Approvals, ToolHarness

from jupyter_agent.builtin_tools.shell import bash_tool
from jupyter_agent.permissions.modes import MODES, Mode
from jupyter_agent.permissions.policy import CallFacts
from jupyter_agent.tools import (
    Allow,
    Approval,
    Approve,
    Ask,
    Deny,
    Dispatcher,
    HookCall,
    PermissionPolicy,
    Reject,
    Rewrite,
    Rule,
    Sandbox,
    ToolCall,
    ToolContext,
    ToolPool,
    ToolResult,
    tool,
)
from jupyter_agent.tools.call_facts import call_facts
from jupyter_agent.tools.dispatch import refuse_all
from jupyter_agent.tools.hooks import Hooks

written: list[str] = []


@tool(kind="edit")
def save(path: str, text: str) -> str:
    """Save text to a path (test double that only records)."""
    written.append(f"{path}={text}")
    return f"saved {path}"


@tool(read_only=True)
def boom() -> str:
    """Always fails."""
    raise RuntimeError("disk on fire")


@tool(read_only=True)
async def slow_echo(text: str) -> str:
    """Async tool."""
    await asyncio.sleep(0)
    return text


def make(policy: PermissionPolicy | None = None, hooks: Hooks | None = None, answer: Approval = Approve()) -> tuple[ToolHarness, Approvals]:  # fmt: skip
    recorder = Approvals(answer)
    return ToolHarness(
        "/tmp", [save, boom, slow_echo], policy=policy, hooks=hooks, approver=recorder
    ), recorder


@pytest.fixture(autouse=True)
def _clear() -> None:
    written.clear()


def test_an_exception_in_a_tool_becomes_execution_error() -> None:
    tools, _ = make()
    result = tools.dispatch("boom", {}).result
    assert result.error_code == "EXECUTION_ERROR"
    assert result.content == "EXECUTION_ERROR: boom failed: RuntimeError: disk on fire"


def test_async_function_tools_run() -> None:
    tools, _ = make()
    assert tools.dispatch("slow_echo", {"text": "hi"}).result.content == "hi"


def test_an_edit_asks_and_runs_when_approved() -> None:
    tools, recorder = make()
    outcome = tools.dispatch("save", {"path": "a", "text": "x"})
    assert outcome.result.content == "saved a"
    assert [r.tool for r in recorder.requests] == ["save"]
    assert written == ["a=x"]


def test_a_denied_call_does_not_run_and_tells_the_model() -> None:
    tools, _ = make(answer=Reject(message="use b instead"))
    result = tools.dispatch("save", {"path": "a", "text": "x"}).result
    assert result.content == "DENIED: save: use b instead"
    assert written == []


def test_always_allow_adds_a_session_rule_so_the_next_call_does_not_ask() -> None:
    tools, recorder = make(answer=Approve(always=True))
    tools.dispatch("save", {"path": "a", "text": "x"})
    tools.dispatch("save", {"path": "b", "text": "y"})
    assert len(recorder.requests) == 1
    assert Rule("save") in tools.policy.allow


def test_a_pre_hook_can_block_a_call_even_in_bypass_mode() -> None:
    def no_lockfiles(call: HookCall) -> Deny | None:
        return (
            Deny(message="lock files are generated")
            if str(call.input.get("path", "")).endswith(".lock")
            else None
        )

    tools, _ = make(PermissionPolicy(mode="bypassPermissions"), Hooks(pre_tool_use=[no_lockfiles]))
    assert (
        tools.dispatch("save", {"path": "uv.lock", "text": "x"}).result.content
        == "DENIED: lock files are generated"
    )
    assert tools.dispatch("save", {"path": "a.py", "text": "x"}).result.content == "saved a.py"
    assert written == ["a.py=x"]


def test_a_pre_hook_can_rewrite_the_arguments_which_are_validated_again() -> None:
    async def redirect(call: HookCall) -> Rewrite:
        return Rewrite(input={**call.input, "path": "safe/" + call.input["path"]})

    tools, _ = make(PermissionPolicy(mode="bypassPermissions"), Hooks(pre_tool_use=[redirect]))
    tools.dispatch("save", {"path": "a", "text": "x"})
    assert written == ["safe/a=x"]

    def broken(call: HookCall) -> Rewrite:
        return Rewrite(input={"path": 1})

    tools, _ = make(PermissionPolicy(mode="bypassPermissions"), Hooks(pre_tool_use=[broken]))
    assert tools.dispatch("save", {"path": "a", "text": "x"}).result.error_code == "INVALID_ARGS"


def test_a_hook_can_ask_for_a_call_the_mode_allows_but_cannot_lift_a_deny_rule() -> None:
    tools, recorder = make(
        PermissionPolicy(mode="bypassPermissions"), Hooks(pre_tool_use=[lambda c: Ask(reason="hook")])
    )
    tools.dispatch("save", {"path": "a", "text": "x"})
    assert len(recorder.requests) == 1

    tools, _ = make(PermissionPolicy(deny=[Rule("save")]), Hooks(pre_tool_use=[lambda c: Allow()]))
    assert tools.dispatch("save", {"path": "a", "text": "x"}).result.error_code == "DENIED"


def test_a_post_hook_can_replace_the_result() -> None:
    seen: list[str] = []

    def log_and_redact(call: HookCall, result: ToolResult) -> ToolResult:
        seen.append(f"{call.tool}:{result.content}")
        return ToolResult.ok("[redacted]")

    tools, _ = make(hooks=Hooks(post_tool_use=[log_and_redact]))
    assert tools.dispatch("slow_echo", {"text": "secret"}).result.content == "[redacted]"
    assert seen == ["slow_echo:secret"]


def test_validation_happens_before_permission_so_nobody_is_asked_about_a_broken_call() -> None:
    tools, recorder = make()
    assert tools.dispatch("save", {"path": "a"}).result.error_code == "INVALID_ARGS"
    assert recorder.requests == []


def test_a_filtered_out_tool_is_not_offered_and_a_call_to_it_is_refused_naming_the_rule() -> None:
    tools, _ = make()
    tools.pool.denied = ["save"]
    assert "save" not in tools.dispatcher.tools()
    result = tools.dispatch("save", {"path": "a", "text": "x"}).result
    assert result.error_code == "DENIED"
    assert "save is denied by the rule 'save'" in result.content
    assert written == []


def test_a_tool_whose_source_went_away_is_refused_as_not_available_not_unknown() -> None:
    tools, _ = make()
    source = tools.pool.source_of("save")
    assert source is not None
    tools.pool.set_source(source, [t for t in tools.pool.sources[source] if t.name != "save"])
    result = tools.dispatch("save", {"path": "a", "text": "x"}).result
    assert result.error_code == "NOT_AVAILABLE"
    assert "save is not available now" in result.content
    assert tools.dispatch("never_was", {}).result.error_code == "UNKNOWN_TOOL"
    assert written == []


def test_pool_sources_merge_by_name_later_wins_and_denied_names_are_hidden() -> None:
    @tool(name="save", read_only=True)
    def user_save(path: str) -> str:
        """A user's replacement."""
        return "user"

    pool = ToolPool()
    pool.set_source("builtin", [save, boom])
    pool.set_source("user", [user_save])
    assert pool.active()["save"] is user_save
    pool.denied = ["boom"]
    assert list(pool.active()) == ["save"]
    pool.denied = ["Edit(src/**)", "s*"]  # a rule with a pattern is a permission rule, not a filter
    assert list(pool.active()) == ["boom"]


def test_a_failing_post_hook_keeps_the_result_of_a_tool_that_ran_and_says_the_hook_failed() -> None:
    def broken(call: HookCall, result: ToolResult) -> ToolResult:
        raise KeyError("audit-log")

    tools, _ = make(PermissionPolicy(mode="bypassPermissions"), Hooks(post_tool_use=[broken]))
    result = tools.dispatch("save", {"path": "a.txt", "text": "hi"}).result
    assert written == ["a.txt=hi"]
    assert not result.is_error
    assert result.content.startswith("saved a.txt\n\n[note: save ran and the result above is its own;")
    assert (
        "post_tool_use hook" in result.content and "broken failed (KeyError: 'audit-log')" in result.content
    )


def test_a_failing_pre_hook_says_the_tool_did_not_run() -> None:
    def broken(call: HookCall) -> None:
        raise RuntimeError("policy server down")

    tools, _ = make(PermissionPolicy(mode="bypassPermissions"), Hooks(pre_tool_use=[broken]))
    result = tools.dispatch("save", {"path": "a.txt", "text": "hi"}).result
    assert written == []
    assert result.error_code == "EXECUTION_ERROR"
    assert "pre_tool_use hook" in result.content and "so save did not run" in result.content


def allowed_with(policy: PermissionPolicy, facts: CallFacts, *, rule: str | None, mode: Mode | None) -> bool:
    """Evaluate the policy with what a refusal suggested, as the user would apply it."""
    changed = dataclasses.replace(policy, allow=[*policy.allow, *([Rule.parse(rule)] if rule else [])])
    if mode is not None:
        changed = dataclasses.replace(changed, mode=mode)
    return isinstance(changed.decide(facts), Allow)


@pytest.mark.parametrize(
    ("name", "tool_input"),
    [
        ("save", {"path": "a.txt", "text": "hi"}),
        ("Bash", {"command": "make test"}),
        ("Bash", {"command": "ls && cat x"}),
    ],
)
def test_a_headless_refusal_names_only_settings_that_would_really_allow_the_call(
    name: str, tool_input: dict[str, Any]
) -> None:
    pool = ToolPool()
    pool.set_source("builtin", [save, bash_tool()])
    policy = PermissionPolicy(mode="default")
    # Built here, not with the harness: the refusal comes from the Dispatcher's own default approver.
    dispatcher = Dispatcher(pool=pool, policy=policy)
    call = ToolCall(id="t", name=name, input=tool_input)
    # The rules and the mode alone, with or without bwrap here (Bash without it: test_bash_sandbox.py).
    sandbox = Sandbox.at("/tmp", bash_sandbox="off")
    refusal = asyncio.run(dispatcher.dispatch(call, ToolContext(sandbox=sandbox))).result.content
    assert refusal.startswith("DENIED: ") and written == []
    called = dispatcher.tools()[name]
    params = called.Input.model_validate(tool_input)
    ctx = ToolContext(sandbox=Sandbox.at("/tmp"))
    facts = call_facts(called, params, ctx, called.rule_subject(params, ctx))
    rules = re.findall(r"--allow '([^']*)'", refusal)
    # MODES.index refuses a name that is no mode
    modes: list[Mode] = [MODES[MODES.index(name)] for name in re.findall(r"--mode (\w+)", refusal)]
    assert rules and modes, refusal
    for rule in rules:
        assert allowed_with(policy, facts, rule=rule, mode=None), f"{rule} would not allow it: {refusal}"
    for mode in modes:
        assert allowed_with(policy, facts, rule=None, mode=mode), (
            f"--mode {mode} would not allow it: {refusal}"
        )
    if name == "Bash":
        assert "acceptEdits" not in refusal


def test_a_refusal_under_an_ask_rule_suggests_no_setting_that_would_still_ask() -> None:
    policy = PermissionPolicy(mode="default", ask=[Rule("save")])
    tools = ToolHarness("/tmp", [save, boom, slow_echo], policy=policy, approver=refuse_all)
    refusal = tools.dispatch("save", {"path": "a.txt", "text": "hi"}).result.content
    assert "--allow" not in refusal and "--mode" not in refusal
    assert "no rule or mode allows it without asking (the rule save asks for approval)" in refusal
