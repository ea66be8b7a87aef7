"""Hooks around calls, requests and turn ends; each kind is a list of callables the agent awaits.

`pre_tool_use` may block or rewrite a call, `post_tool_use` may replace its result, `user_prompt_submit` may
block a request or add context to it, `stop` may send the model back to work when it wants to end its turn.
Python callables (the `pre_tool_use` / `post_tool_use` settings) and Claude Code's command hooks from settings
files (`command_hooks.py`) both arrive here. The other moments of a session (SessionStart, PermissionRequest,
Notification, SubagentStart, PreCompact, SessionEnd, …) go to `events`, which answer with an `EventAnswer`;
a hook that says `continue: false` leaves its reason in `halted`, and the run ends at its next step.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..base.errors import ToolError
from ..base.result import ToolResult
from ..permissions.kinds import RuleKind
from ..permissions.policy import Allow, Ask, Deny


@dataclass(frozen=True, kw_only=True)
class HookCall:
    """What a hook sees: the tool's name, the validated arguments as JSON data, and the rule subject."""

    tool: str
    input: dict[str, Any]
    subject: str | None
    #: The tool_use block's id ("" where there is none).
    tool_use_id: str = ""
    #: How permission rules read the subject ("command" for a shell tool): a hook's `if` reads it the same way.
    rule_kind: RuleKind = "text"


@dataclass(frozen=True, kw_only=True)
class Rewrite:
    """Run the call with these arguments instead (validated again).

    `then` is the hook's answer about the new input: Allow lets it through where the mode would ask, Ask asks,
    None leaves the decision to the policy.
    """

    input: dict[str, Any]
    then: Allow | Ask | None = None


@dataclass(frozen=True, kw_only=True)
class PromptBlocked:
    """The request is not sent: `reason` is shown to the user (not to the model)."""

    reason: str


@dataclass(frozen=True, kw_only=True)
class PromptContext:
    """Text added to the request's message, after it."""

    text: str


PreResult = Allow | Ask | Deny | Rewrite | None
PreHook = Callable[[HookCall], PreResult | Awaitable[PreResult]]
PostHook = Callable[[HookCall, ToolResult], ToolResult | Awaitable[ToolResult | None] | None]
PromptResult = PromptBlocked | PromptContext | None
PromptHook = Callable[[str], PromptResult | Awaitable[PromptResult]]
#: Called with whether a stop hook already sent the model back in this run and the model's last text; returns
#: why to go on, or None.
StopHook = Callable[[bool, str], str | Awaitable[str | None] | None]


@dataclass(frozen=True, kw_only=True)
class EventAnswer:
    """What the hooks of one moment of the session said (Claude Code's outputs, read by each event's caller)."""

    #: Exit code 2 or `decision: "block"`, with the reason ("" when nothing blocked).
    blocked: str = ""
    #: `additionalContext` (and, where Claude Code adds it, what a hook printed) for the model.
    context: str = ""
    #: PermissionRequest's `hookSpecificOutput.decision`: `{"behavior": "allow" | "deny", "message": …}`.
    permission: dict[str, Any] = field(default_factory=dict[str, Any])


#: A moment's hooks: (event name, its own input fields, what its matcher reads — None: no matcher) → answer.
EventHook = Callable[[str, dict[str, Any], str | None], Awaitable[EventAnswer]]

log = logging.getLogger(__name__)


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _hook_name(hook: object) -> str:
    return getattr(hook, "__qualname__", None) or getattr(hook, "__name__", None) or type(hook).__name__


def _after_failed_post_hook(result: ToolResult, call: HookCall, hook: object, exc: Exception) -> ToolResult:
    """The tool ran: keep its result (so the model does not redo a Write that happened) and say the hook failed."""
    note = (
        f"[note: {call.tool} ran and the result above is its own; then the post_tool_use hook "
        f"{_hook_name(hook)} failed ({type(exc).__name__}: {exc}), so that hook did not process it]"
    )
    content = f"{result.content}\n\n{note}" if result.content else note
    summary = (
        f"{result.summary} · post_tool_use hook failed" if result.summary else "post_tool_use hook failed"
    )
    return dataclasses.replace(result, content=content, summary=summary)


@dataclass(kw_only=True)
class Hooks:
    """The session's hooks, run by the Dispatcher around every call (see docs/hooks.md)."""

    pre_tool_use: list[PreHook] = field(default_factory=list[PreHook])
    post_tool_use: list[PostHook] = field(default_factory=list[PostHook])
    user_prompt_submit: list[PromptHook] = field(default_factory=list[PromptHook])
    stop: list[StopHook] = field(default_factory=list[StopHook])
    events: list[EventHook] = field(default_factory=list[EventHook])
    #: Why a hook said `continue: false` (its `stopReason`): the run ends at its next step. Shared with the
    #: sub-agents' hooks, so a sub-agent's hook ends the whole run, as in Claude Code.
    halted: list[str] = field(default_factory=list[str])
    #: What `asyncRewake` hooks that finished with exit code 2 say for the model: it reads them when its turn
    #: ends (it goes on), or at the next run's start. Shared with the sub-agents' hooks.
    woken: list[str] = field(default_factory=list[str])

    def for_subagent(self) -> Hooks:
        """A sub-agent's calls pass the same tool hooks and events; requests and turn ends are the main agent's.

        SubagentStart and SubagentStop are fired around it by the parent.
        """
        return Hooks(
            pre_tool_use=self.pre_tool_use,
            post_tool_use=self.post_tool_use,
            events=self.events,
            halted=self.halted,
            woken=self.woken,
        )

    def take_woken(self) -> list[str]:
        """What background hooks woke the agent with since the last look (and forget it)."""
        woken = list(self.woken)
        self.woken.clear()
        return woken

    def take_halt(self) -> str | None:
        """The first `continue: false` reason since the last look (and forget them all), or None."""
        if not self.halted:
            return None
        reason = self.halted[0]
        self.halted.clear()
        return reason

    async def run_event(self, event: str, fields: dict[str, Any], match: str | None = None) -> EventAnswer:
        """Every event hook's answer, together: the first block, every context, a deny over an allow."""
        answers: list[EventAnswer] = []
        for hook in self.events:
            try:
                answers.append(await hook(event, fields, match))
            except Exception:
                log.exception("%s hook %s failed", event, _hook_name(hook))
        blocked = next((a.blocked for a in answers if a.blocked), "")
        context = "\n".join(a.context for a in answers if a.context)
        decisions = [a.permission for a in answers if a.permission]
        denied = [d for d in decisions if d.get("behavior") == "deny"]
        permission = (denied or decisions or [{}])[0]
        return EventAnswer(blocked=blocked, context=context, permission=permission)

    async def run_prompt(self, prompt: str) -> tuple[PromptBlocked | None, list[str]]:
        """(the first block, the context texts to add); a hook that raises is logged and counts as no answer."""
        added: list[str] = []
        for hook in self.user_prompt_submit:
            try:
                answer: PromptResult = await _maybe_await(hook(prompt))
            except Exception:
                log.exception("user_prompt_submit hook %s failed", _hook_name(hook))
                continue
            if isinstance(answer, PromptBlocked):
                return answer, added
            if isinstance(answer, PromptContext) and answer.text.strip():
                added.append(answer.text)
        return None, added

    async def run_stop(self, active: bool, last_message: str = "") -> str | None:
        """Why the model should go on (the reasons of every hook that said so), or None to let it stop."""
        reasons: list[str] = []
        for hook in self.stop:
            try:
                reason: str | None = await _maybe_await(hook(active, last_message))
            except Exception:
                log.exception("stop hook %s failed", _hook_name(hook))
                continue
            if reason:
                reasons.append(reason)
        return "\n".join(reasons) or None

    async def run_pre(self, call: HookCall) -> PreResult:
        """First non-None answer wins, except that a later Deny still beats an earlier Allow."""
        verdict: PreResult = None
        for hook in self.pre_tool_use:
            try:
                answer: PreResult = await _maybe_await(hook(call))
            except Exception as exc:
                raise ToolError(
                    "EXECUTION_ERROR",
                    f"the pre_tool_use hook {_hook_name(hook)} failed ({type(exc).__name__}: {exc}), so "
                    f"{call.tool} did not run; the user's hook needs fixing, retrying will fail the same way",
                ) from exc
            if isinstance(answer, Deny | Rewrite):
                return answer
            if verdict is None:
                verdict = answer
        return verdict

    async def run_post(self, call: HookCall, result: ToolResult) -> ToolResult:
        """Each hook gets the result the previous one left; one that raises is reported, and the rest still run."""
        for hook in self.post_tool_use:
            try:
                replaced: ToolResult | None = await _maybe_await(hook(call, result))
            except Exception as exc:
                result = _after_failed_post_hook(result, call, hook, exc)
                continue
            if replaced is not None:
                result = replaced
        return result
