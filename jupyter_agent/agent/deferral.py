"""Many MCP tools: declared deferred and found through Anthropic's tool search tool, so the first request stays small.

Past `MAX_MCP_TOOLS` MCP tools or `MAX_MCP_BYTES` of their definitions (compact JSON), a conversation's first
request declares every MCP tool with `defer_loading: true` and offers the regex tool search tool
(`tool_search_tool_regex_20251119`, docs "Tool search tool"): the model sees only the built-in tools and the search
tool; a search returns `tool_reference`s and the API loads the found definitions, which the model then calls as
usual (the dispatcher runs them like any MCP tool). The deferred definitions stay in `tools`, byte-identical in
every request, so the cache prefix holds.

A deferred tool is never "told" (`tool_addition`) later: it is the search's to find (`untold`). The search runs on
Anthropic's side, so an endpoint that does not run server tools (Bedrock, `SERVER_TOOL_PROVIDERS`) gets every
definition as before.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ..builtin_tools.web.search import SERVER_TOOL_PROVIDERS
from ..tools.registry import ToolPool
from .prefix import Definition

#: More MCP tools than this, or more definition bytes than `MAX_MCP_BYTES`, and they are deferred.
MAX_MCP_TOOLS = 40
MAX_MCP_BYTES = 20_000
SEARCH_TOOL: Definition = {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}


def _size(definitions: list[Definition]) -> int:
    return sum(len(json.dumps(d, separators=(",", ":")).encode()) for d in definitions)


def _over(definitions: list[Definition]) -> bool:
    return len(definitions) > MAX_MCP_TOOLS or _size(definitions) > MAX_MCP_BYTES


def mcp_tool_names(pool: ToolPool) -> set[str]:
    return {name for name in pool.active() if (pool.source_of(name) or "").startswith("mcp:")}


def deferred(tools: dict[str, Definition], mcp: set[str], *, provider: str) -> dict[str, Definition]:
    """The first request's tools: as they are, or (past the threshold, where server tools run) with the MCP tools
    deferred and the tool search tool offered."""
    if not _over([d for name, d in tools.items() if name in mcp]) or provider not in SERVER_TOOL_PROVIDERS:
        return tools
    kept = {name: d for name, d in tools.items() if name not in mcp}
    hidden = {name: {**d, "defer_loading": True} for name, d in tools.items() if name in mcp}
    return {**kept, SEARCH_TOOL["name"]: dict(SEARCH_TOOL), **hidden}


def _is_search(definition: Definition) -> bool:
    return str(definition.get("type", "")).startswith("tool_search_tool_")


def searches(declared: tuple[Definition, ...]) -> bool:
    return any(_is_search(d) for d in declared)


def untold(
    declared: tuple[Definition, ...], told: Mapping[str, Definition], now: Mapping[str, Definition]
) -> dict[str, Definition]:
    """The tools to compare with what the model was told: `now`, with the declared search tool (not a pool tool),
    and without the deferred tools a search finds (never told)."""
    if not searches(declared):
        return dict(now)
    hidden = {str(d.get("name")) for d in declared if d.get("defer_loading") is True}
    found = {
        name: told[name] for name in hidden if name in told
    }  # as the conversation declared them: no change
    kept = {name: d for name, d in now.items() if name not in hidden}
    search = {str(d.get("name")): d for d in declared if _is_search(d)}
    return {**search, **kept, **found}


def deferral_note(declared: tuple[Definition, ...] | None, pool: ToolPool, *, provider: str) -> str | None:
    """`%agent tools`' line on deferred MCP tools: deferred in this conversation, or why not though past the size."""
    if declared is not None and searches(declared):
        hidden = sum(1 for d in declared if d.get("defer_loading") is True)
        return f"deferred: {hidden} MCP tools, found by {SEARCH_TOOL['name']} (past {MAX_MCP_TOOLS} tools or {MAX_MCP_BYTES} bytes)"
    active = pool.active()
    mcp = [active[name].to_param() for name in mcp_tool_names(pool)]
    if not _over(mcp):
        return None
    if provider not in SERVER_TOOL_PROVIDERS:
        return f"{len(mcp)} MCP tools declared in full: the {provider} endpoint does not run Anthropic's tool search tool"
    if declared is None:
        return (
            f"{len(mcp)} MCP tools: the first request declares them deferred, found by {SEARCH_TOOL['name']}"
        )
    return f"{len(mcp)} MCP tools declared in full in this conversation; a new one (%agent reset) defers them"
