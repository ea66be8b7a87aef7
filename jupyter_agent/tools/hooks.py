"""User hooks around every call: `pre_tool_use` may block or rewrite it, `post_tool_use` may replace the result."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from .permissions import Allow, Ask, Deny
from .result import ToolResult


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


@dataclass(kw_only=True)
class Hooks:
    pre_tool_use: list[PreHook] = field(default_factory=list[PreHook])
    post_tool_use: list[PostHook] = field(default_factory=list[PostHook])

    async def run_pre(self, call: HookCall) -> PreResult:
        """First non-None answer wins, except that a later Deny still beats an earlier Allow."""
        verdict: PreResult = None
        for hook in self.pre_tool_use:
            answer: PreResult = await _maybe_await(hook(call))
            if isinstance(answer, Deny | Rewrite):
                return answer
            if verdict is None:
                verdict = answer
        return verdict

    async def run_post(self, call: HookCall, result: ToolResult) -> ToolResult:
        for hook in self.post_tool_use:
            replaced: ToolResult | None = await _maybe_await(hook(call, result))
            if replaced is not None:
                result = replaced
        return result
