"""User hooks around every call: `pre_tool_use` may block or rewrite it, `post_tool_use` may replace the result."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..base.errors import ToolError
from ..base.result import ToolResult
from .permissions import Allow, Ask, Deny


@dataclass(frozen=True, kw_only=True)
class HookCall:
    """What a hook sees: the tool's name, the validated arguments as JSON data, and the rule subject."""

    tool: str
    input: dict[str, Any]
    subject: str | None


@dataclass(frozen=True, kw_only=True)
class Rewrite:
    """Run the call with these arguments instead (validated again)."""

    input: dict[str, Any]


PreResult = Allow | Ask | Deny | Rewrite | None
PreHook = Callable[[HookCall], PreResult | Awaitable[PreResult]]
PostHook = Callable[[HookCall, ToolResult], ToolResult | Awaitable[ToolResult | None] | None]


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
