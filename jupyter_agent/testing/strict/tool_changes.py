"""Mid-conversation tool changes: `tool_addition` / `tool_removal` blocks in a `role: "system"` message, and which
tools are available at the end of a conversation.

Docs "Mid-conversation system messages and tool changes" and docs/testing.md "Where the docs are silent" 3,
which the package's client follows:

- the blocks need a beta: `inline-tools-2026-09-15` (references and inline `tool_definition`s) or
  `mid-conversation-tool-changes-2026-07-01` (references only); MCP references also `mcp-client-2026-09-15`;
- a `tool_reference` names a tool declared in `tools` or defined by an earlier `tool_addition`, else the 400 has
  `error.details.error_code: "tool_reference_unresolved"`;
- adding a name that is available at that point is `tool_name_conflict`; a removal, then an addition of the same name
  (in the same or a later system message) redefines it;
- no tool change directly after a paused assistant turn; `cache_control` on the block or inside its definition, not
  both; a definition obeys the rules of a `tools` entry (`tool_defs`), and computer-use tools cannot be defined in a
  message;
- `available_tools_limit_exceeded` past 10,000 deferred tools, 10,000 tools defined in messages, or 4 MB of them.

Available at the start: every tool in `tools` that is not deferred. The result is informational: the API treats a
removal as a hint, so a later `tool_use` of a removed tool is accepted. The docs give the error codes, not the
messages; every message here is our wording, and each names the fix.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...base.json_values import is_object
from .canonical import array
from .joined import JoinedTurn, Placed, joined_turns
from .rejection import Rejection, invalid
from .tool_defs import definition_problem
from .turns import was_paused

INLINE_TOOLS_BETA = "inline-tools-2026-09-15"
TOOL_CHANGES_BETA = "mid-conversation-tool-changes-2026-07-01"
MCP_BETA = "mcp-client-2026-09-15"
MAX_DEFERRED_TOOLS = 10_000
MAX_ADDED_TOOLS = 10_000
MAX_ADDED_BYTES = 4 * 1024 * 1024
_REFERENCES = ("tool_reference", "mcp_tool_reference", "mcp_toolset_reference")
_CHANGES = ("tool_addition", "tool_removal")
UNRESOLVED = "tool_reference_unresolved"
CONFLICT = "tool_name_conflict"
LIMIT = "available_tools_limit_exceeded"


def _tags(options: Sequence[str]) -> str:
    return ", ".join(f"'{o}'" for o in options)


@dataclass
class _State:
    betas: frozenset[str]
    declared: set[str]
    servers: set[str]
    #: Names available now, in the order they became available.
    available: list[str]
    defined: set[str] = field(default_factory=set[str])
    added: int = 0
    added_bytes: int = 0


def available_tools(
    body: dict[str, Any], betas: frozenset[str], paused: Callable[[Any], bool]
) -> tuple[str, ...] | Rejection:
    """The names of the tools available at the end of `body`'s messages, or the API's error for its tool changes."""
    tools = [t for t in array(body.get("tools")) if is_object(t)]
    deferred = [t for t in tools if t.get("defer_loading") is True]
    if len(deferred) > MAX_DEFERRED_TOOLS:
        return invalid(
            f"tools: {len(deferred)} tools have defer_loading: true; at most {MAX_DEFERRED_TOOLS} are allowed",
            error_code=LIMIT,
        )
    servers = {str(t.get("mcp_server_name")) for t in tools if t.get("type") == "mcp_toolset"}
    servers |= {str(s.get("name")) for s in array(body.get("mcp_servers")) if is_object(s)}
    state = _State(
        betas=betas,
        declared={str(t.get("name")) for t in tools if "name" in t},
        servers=servers,
        available=[str(t.get("name")) for t in tools if "name" in t and t.get("defer_loading") is not True],
    )
    turns = joined_turns(array(body.get("messages")))
    for number, turn in enumerate(turns):
        if turn.role != "system":
            continue
        before = turns[number - 1] if number else None
        for placed in turn.blocks:
            problem = _change(placed, state, before, paused)
            if problem is not None:
                return problem
    return tuple(state.available)


def _change(
    placed: Placed, state: _State, before: JoinedTurn | None, paused: Callable[[Any], bool]
) -> Rejection | None:
    """Check one block of a system message and apply it to `state`."""
    if placed.type == "text":
        return None
    problem = _block_kind(placed, state)
    if problem is not None:
        return problem
    if before is not None and before.role == "assistant" and was_paused(before, paused):
        return invalid(
            f"{placed.path}: `{placed.type}` blocks are not accepted directly after a paused assistant turn "
            "(stop_reason `pause_turn`); send the paused turn back, then put the tool change after the next user "
            "message"
        )
    named = _named(placed, state)
    if named is None or isinstance(named, Rejection):
        return named
    if placed.type == "tool_removal":
        if named in state.available:
            state.available.remove(named)
        return None
    if named in state.available:
        return invalid(
            f"{placed.path}: a tool named '{named}' is already available at this point; to redefine it, remove "
            "it first with a `tool_removal` block",
            error_code=CONFLICT,
        )
    state.available.append(named)
    return None


def _block_kind(placed: Placed, state: _State) -> Rejection | None:
    """A system message holds text, and tool changes under their beta."""
    kind = placed.type
    beta = state.betas & {INLINE_TOOLS_BETA, TOOL_CHANGES_BETA}
    if kind in _CHANGES and beta:
        return None
    allowed = ("text", *_CHANGES) if beta else ("text",)
    hint = (
        f"; tool changes need the `{INLINE_TOOLS_BETA}` (or `{TOOL_CHANGES_BETA}`) value in the `anthropic-beta` "
        "header"
        if kind in _CHANGES
        else ""
    )
    return invalid(
        f"{placed.path}: Input tag '{kind}' found using 'type' does not match any of the expected tags: "
        f"{_tags(allowed)}{hint}"
    )


def _named(placed: Placed, state: _State) -> str | Rejection | None:
    """The tool name a change's `tool` stands for (None for an MCP reference, not tracked), or its error."""
    path = placed.path
    tool = placed.block.get("tool")
    if not is_object(tool):
        return invalid(f"{path}.tool: Field required")
    tool_kind = str(tool.get("type"))
    kinds = _REFERENCES
    if placed.type == "tool_addition" and INLINE_TOOLS_BETA in state.betas:
        kinds = (*_REFERENCES, "tool_definition")
    if tool_kind not in kinds:
        hint = (
            f"; an inline definition needs the `{INLINE_TOOLS_BETA}` value in the `anthropic-beta` header"
            if tool_kind == "tool_definition" and placed.type == "tool_addition"
            else ""
        )
        return invalid(
            f"{path}.tool: Input tag '{tool_kind}' found using 'type' does not match any of the expected tags: "
            f"{_tags(kinds)}{hint}"
        )
    if tool_kind.startswith("mcp_"):
        return _mcp_reference(path, tool, state)
    if tool_kind == "tool_definition":
        return _definition(placed, tool, state)
    return _reference(path, tool, state)


def _reference(path: str, tool: dict[str, Any], state: _State) -> str | Rejection:
    name = tool.get("name")
    if not isinstance(name, str) or (name not in state.declared and name not in state.defined):
        return invalid(
            f"{path}.tool: `tool_reference` '{name}' names no tool declared in `tools` or defined by an earlier "
            "`tool_addition` block; declare it in `tools` (with defer_loading: true to keep it hidden) or add "
            "it with a `tool_definition`",
            error_code=UNRESOLVED,
        )
    return name


def _definition(placed: Placed, tool: dict[str, Any], state: _State) -> str | Rejection:
    path = f"{placed.path}.tool.definition"
    definition = tool.get("definition")
    problem = definition_problem(definition)
    if problem is not None or not is_object(definition):
        return invalid(f"{path}{problem}")
    definition_kind = str(definition.get("type") or "custom")
    if definition_kind.startswith("computer_"):
        return invalid(
            f"{path}: tool type '{definition_kind}' cannot be defined inside a message; declare it in `tools`"
        )
    if definition_kind == "mcp_toolset" and MCP_BETA not in state.betas:
        return invalid(
            f"{path}: an `mcp_toolset` definition needs the `{MCP_BETA}` value in the `anthropic-beta` header"
        )
    if placed.block.get("cache_control") is not None and definition.get("cache_control") is not None:
        return invalid(
            f"{placed.path}: cache_control may be set on the `tool_addition` block or inside its definition, "
            "not both; remove one of them"
        )
    state.added += 1
    state.added_bytes += len(json.dumps(definition, separators=(",", ":")).encode())
    if state.added > MAX_ADDED_TOOLS or state.added_bytes > MAX_ADDED_BYTES:
        return invalid(
            f"{path}: the tools defined in messages exceed the limit ({state.added} definitions, "
            f"{state.added_bytes} bytes; at most {MAX_ADDED_TOOLS} and {MAX_ADDED_BYTES} bytes)",
            error_code=LIMIT,
        )
    name = str(definition.get("name") or definition.get("mcp_server_name"))
    state.defined.add(name)
    return name


def _mcp_reference(path: str, tool: dict[str, Any], state: _State) -> Rejection | None:
    """An MCP reference: needs the MCP beta and a server the request declares (`mcp_servers` or an `mcp_toolset`
    in `tools`). MCP tools' own names are not tracked as available tools."""
    if MCP_BETA not in state.betas:
        return invalid(
            f"{path}.tool: MCP references need the `{MCP_BETA}` value in the `anthropic-beta` header"
        )
    server = tool.get("server_name")
    if server not in state.servers:
        return invalid(
            f"{path}.tool: `{tool.get('type')}` names the MCP server '{server}', which this request does not "
            "declare in `mcp_servers`",
            error_code=UNRESOLVED,
        )
    return None
