"""Claude Code's command hooks (`hooks` in `.claude/settings.json`) at every moment of a session they name.

Each event goes to its hooks as Claude Code sends it (the common fields, then the event's own — tool events
with `tool_input` and `tool_response` in Claude Code's shapes, `hook_payloads.py`), and what they answer acts as
Claude Code documents it, within this package's rule: a hook can deny, never lift a protection. The hooks of
one event run at the same time, the same command once; `async` ones in the background. What they print is
untrusted: it is masked and escaped wherever it is shown, and what goes back to the model is masked here or by
the Dispatcher. One run of one hook is `command_hook_run.py`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..base.json_values import is_object
from ..base.result import ToolResult
from ..masking import mask, mask_data
from ..permissions.policy import Allow, Ask, Deny
from .command_hook_run import (
    DEFAULT_TIMEOUT,
    HOOK_EVENTS,
    MATCH_ALL,
    AskModel,
    CommandHook,
    HookEvent,
    HookRun,
    HookSession,
    run_hook,
    run_prompt_hook,
)
from .hook_payloads import claude_tool_input, claude_tool_response
from .hooks import EventAnswer, HookCall, PreResult, PromptBlocked, PromptContext, PromptResult, Rewrite
from .http_hook_run import run_http_hook
from .permission_updates import read_updates

__all__ = [
    "DEFAULT_TIMEOUT",
    "HOOK_EVENTS",
    "MATCH_ALL",
    "CommandHook",
    "CommandHooks",
    "HookEvent",
    "HookSession",
]

#: Events whose exit code 2 stops what was about to happen; for the others it only shows stderr to the user.
CAN_BLOCK = frozenset({"PermissionRequest", "SubagentStop", "PreCompact"})
#: Events where what a hook prints on success (not JSON) is added for the model, as Claude Code does.
STDOUT_IS_CONTEXT = frozenset({"SessionStart", "UserPromptSubmit"})


class CommandHooks:
    """The command hooks of a session, as the callables `Hooks` runs (`pre_tool_use`, `fire`, …).

    `session` gives the common input fields at each call; `report` tells the user a line (a hook that failed or
    timed out, a hook's `systemMessage`) — it is called on the worker thread; `halted` receives the reason of a
    hook that says `continue: false` (the `Hooks.halted` of the session).
    """

    def __init__(
        self,
        hooks: Sequence[CommandHook],
        *,
        session: Callable[[], HookSession],
        report: Callable[[str], None],
        env: Mapping[str, str] | None = None,
        halted: list[str] | None = None,
        ask: AskModel | None = None,
        woken: list[str] | None = None,
    ) -> None:
        self.hooks = tuple(hooks)
        #: How a `prompt` hook asks the session's model.
        self.ask = ask
        self.session = session
        self.report = report
        self.env = env
        self.halted: list[str] = halted if halted is not None else []
        #: What `asyncRewake` hooks that exited with code 2 tell the model (the `Hooks.woken` of the session).
        self.woken: list[str] = woken if woken is not None else []
        self._background: set[asyncio.Task[HookRun]] = set()
        #: PreToolUse's `additionalContext`, by tool_use id, for the model once the call has run.
        self._pre_context: dict[str, str] = {}

    def of(self, event: HookEvent) -> list[CommandHook]:
        return [hook for hook in self.hooks if hook.event == event]

    def events(self) -> set[str]:
        return {hook.event for hook in self.hooks}

    async def _run_all(
        self, event: str, fields: dict[str, Any], match: str | None = None, call: HookCall | None = None
    ) -> list[HookRun]:
        wanted = [h for h in self.hooks if h.event == event and (match is None or h.matches(match))]
        wanted = [h for h in wanted if call is None or h.applies(call)]
        unique = list(
            {(h.command, h.prompt, h.url): h for h in wanted}.values()
        )  # the same command once, as Claude Code does
        if not unique:
            return []
        session = self.session()
        payload = {
            "session_id": session.session_id,
            "transcript_path": session.transcript_path,
            "cwd": session.cwd,
            "permission_mode": session.permission_mode,
            "hook_event_name": event,
            **fields,
        }
        # the one step where an event leaves for a hook: every string in it masked as it is now
        stdin = json.dumps(mask_data(payload), ensure_ascii=False, default=str).encode("utf-8")
        for hook in (h for h in unique if h.background):
            task = asyncio.create_task(self._run_one(hook, stdin))
            self._background.add(task)
            task.add_done_callback(self._background_done)
        runs = await asyncio.gather(*(self._run_one(h, stdin) for h in unique if not h.background))
        for run in runs:
            self._tell(run)
            if (halt := run.halt()) is not None:
                self.halted.append(mask(halt))
        return list(runs)

    async def _run_one(self, hook: CommandHook, stdin: bytes) -> HookRun:
        if hook.kind == "prompt":
            return await run_prompt_hook(hook, stdin, self.ask)
        if hook.kind == "http":
            return await run_http_hook(hook, stdin, self.env if self.env is not None else os.environ)
        return await run_hook(hook, stdin, self.env)

    def _tell(self, run: HookRun) -> None:
        if run.failure:
            self.report(mask(run.failure))
        if message := run.message():
            self.report(mask(f"{run.hook.describe()}: {message}"))

    def _background_done(self, task: asyncio.Task[HookRun]) -> None:
        """An `async` hook finished: its failure or `systemMessage` is told; it cannot decide anything. An
        `asyncRewake` one that exited with code 2 wakes the agent: its stderr (else stdout) is for the model."""
        self._background.discard(task)
        if task.cancelled() or task.exception() is not None:
            return
        run = task.result()
        self._tell(run)
        if run.hook.rewake and run.blocked:
            said = run.stderr.strip() or run.stdout.strip() or "it exited with code 2"
            self.woken.append(mask(f"{run.hook.describe()}: {said}"))
            self.report(mask(f"{run.hook.describe()} wakes the agent: {said}"))

    async def settle(self) -> None:
        """Wait for the `async` hooks still running (a session's end, a test)."""
        while self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

    def _cwd(self) -> str:
        return self.session().cwd

    # -- the moments of a session (`Hooks.events`) ----------------------------------------------------------

    async def fire(self, event: str, fields: dict[str, Any], match: str | None = None) -> EventAnswer:
        """Any event but the four tool-and-turn ones below: its block (where the event can block; elsewhere
        stderr is shown), its context, PermissionRequest's decision."""
        runs = await self._run_all(event, fields, match)
        blocked = ""
        for run in runs:
            if not (run.blocked or run.decision() == "block"):
                continue
            reason = run.reason() or f"{run.hook.describe()} blocked it"
            if event in CAN_BLOCK:
                blocked = blocked or mask(reason)
            elif run.blocked:
                self.report(mask(f"{run.hook.describe()}: {reason}"))
        contexts = [run.context() for run in runs]
        if event in STDOUT_IS_CONTEXT:
            contexts += [run.stdout.strip() for run in runs if run.code == 0 and not run.output]
        decisions = [dict(d) for d in map(lambda r: r.specific("decision"), runs) if is_object(d)]
        decisions = [d for d in decisions if d.get("behavior") in ("allow", "deny")]
        denied = [d for d in decisions if d["behavior"] == "deny"]
        decision: dict[str, Any] = (denied or decisions or [{}])[0]  # a deny from any hook wins
        if any(run.blocked for run in runs) and event == "PermissionRequest":
            decision = {"behavior": "deny", "message": blocked}
        if decision.get("behavior") == "allow":  # what of its updatedPermissions is not applied, said once
            for note in read_updates(decision.get("updatedPermissions"))[1]:
                self.report(mask(f"{event} hook: {note}"))
        context = "\n".join(c for c in contexts if c)
        return EventAnswer(blocked=blocked, context=mask(context) if context else "", permission=decision)

    # -- the tool and turn events, as `Hooks` calls them ---------------------------------------------------

    def _tool_fields(self, call: HookCall) -> dict[str, Any]:
        return {
            "tool_name": call.tool,
            "tool_input": claude_tool_input(call.tool, call.input, self._cwd()),
            "tool_use_id": call.tool_use_id,
        }

    async def pre_tool_use(self, call: HookCall) -> PreResult:
        """Exit code 2 or a `deny` blocks (the reason goes to the model); `ask` asks; `allow` lets it through
        where the mode would ask; `updatedInput` replaces the input. A block wins over everything else."""
        runs = await self._run_all("PreToolUse", self._tool_fields(call), call.tool, call)
        if context := "\n".join(run.context() for run in runs if run.context()):
            self._pre_context[call.tool_use_id] = mask(context)
        verdicts = [_pre_verdict(run, call.tool) for run in runs]
        for kind in (Deny, Rewrite, Ask, Allow):
            for verdict in verdicts:
                if isinstance(verdict, kind):
                    return verdict
        return None

    async def post_tool_use(self, call: HookCall, result: ToolResult) -> ToolResult | None:
        """The tool ran. Success: PostToolUse with the tool's response in Claude Code's shape; an error result:
        PostToolUseFailure with its `error`. Exit code 2, a `block` decision or `additionalContext` add text for
        the model."""
        fields = self._tool_fields(call)
        if result.is_error:
            event = "PostToolUseFailure"
            fields |= {"error": mask(result.content), "is_interrupt": result.error_code == "INTERRUPTED"}
        else:
            event = "PostToolUse"
            fields["tool_response"] = claude_tool_response(call.tool, call.input, result, self._cwd())
        runs = await self._run_all(event, fields, call.tool, call)
        result = _with_updated_output(result, runs, call.tool) if event == "PostToolUse" else result
        before = self._pre_context.pop(call.tool_use_id, "")
        notes = [f"[PreToolUse hook context: {before}]"] if before else []
        notes += [
            f"[{event} hook feedback: {text}]"
            for run in runs
            for text in (run.reason() if run.blocked or run.decision() == "block" else "", run.context())
            if text
        ]
        if not notes:
            return result
        content = "\n\n".join([result.content, *notes]) if result.content else "\n\n".join(notes)
        return dataclasses.replace(result, content=content)

    async def user_prompt_submit(self, prompt: str) -> PromptResult:
        """Exit code 2 or a `block` decision stops the request (the reason is shown to the user only), as does
        `continue: false` (its `stopReason`); what a hook prints on success (or its `additionalContext`) is
        added to the request."""
        runs = await self._run_all("UserPromptSubmit", {"prompt": prompt})
        for run in runs:
            if run.blocked or run.decision() == "block":
                return PromptBlocked(
                    reason=mask(run.reason() or f"{run.hook.describe()} blocked the request")
                )
        if self.halted:  # `continue: false`: the request is not sent
            return PromptBlocked(reason=self.halted.pop())
        added = [run.context() or ("" if run.output or run.code != 0 else run.stdout.strip()) for run in runs]
        text = "\n".join(a for a in added if a)
        return PromptContext(text=mask(text)) if text else None

    async def stop(self, active: bool, last_message: str = "") -> str | None:
        """Exit code 2 or a `block` decision sends the model back to work, with the reason as the next message."""
        fields = {"stop_hook_active": active, "last_assistant_message": last_message}
        runs = await self._run_all("Stop", fields)
        reasons = [run.reason() for run in runs if run.blocked or run.decision() == "block"]
        text = "\n".join(r for r in reasons if r)
        return mask(text) if text else None


def _with_updated_output(result: ToolResult, runs: list[HookRun], tool: str) -> ToolResult:
    """`updatedToolOutput` (any tool) or `updatedMCPToolOutput` (an MCP tool's): what the model reads instead of
    the tool's output — text as it is, other JSON as JSON. The last hook that gives one wins."""
    keys = (
        ("updatedToolOutput", "updatedMCPToolOutput") if tool.startswith("mcp__") else ("updatedToolOutput",)
    )
    for run in runs:
        for key in keys:
            value = run.specific(key)
            if value is not None:
                text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                result = dataclasses.replace(result, content=mask(text))
    return result


def _pre_verdict(run: HookRun, tool: str) -> PreResult:
    decision = run.specific("permissionDecision")
    decision = decision.lower() if isinstance(decision, str) else ""
    legacy = run.decision()
    if run.blocked or decision == "deny" or legacy == "block":
        reason = run.reason() or "a PreToolUse hook refused it"
        return Deny(message=f"{tool} was blocked by the {run.hook.describe()}: {reason}")
    then: Allow | Ask | None = None
    if decision == "ask":
        then = Ask(reason=run.reason() or f"the {run.hook.describe()} asks for approval")
    elif decision == "allow" or legacy == "approve":
        then = Allow(reason=run.reason() or f"allowed by the {run.hook.describe()}")
    updated = run.specific("updatedInput")
    if is_object(updated):  # Claude Code: `updatedInput` with `allow` runs the new input without asking
        return Rewrite(input=dict(updated), then=then)
    return then  # `defer` (and no decision) leaves it to the permission rules and the mode
