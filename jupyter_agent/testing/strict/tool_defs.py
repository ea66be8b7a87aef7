"""Rules on `tools` and on `cache_control` breakpoints.

Tool names match `^[a-zA-Z0-9_-]{1,64}$` and are unique; a custom tool's `input_schema` is an object schema; a server
tool carries the name its type fixes (`web_search_20250305` is `web_search`); at least one tool is not deferred
(`defer_loading: true`), and a deferred one carries no `cache_control`. The same rules hold for a definition added
in a message (`tool_changes`). At most 4 blocks carry `cache_control`, counting a top-level one (automatic caching).
Wording: [OBS] real responses where marked.
"""

from __future__ import annotations

import re
from typing import Any

from ...base.json_values import is_array, is_object
from .rejection import Rejection, invalid

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
#: Server and Anthropic-defined tool types whose `name` is fixed, by type prefix.
_FIXED_NAMES = {
    "web_search_": "web_search",
    "web_fetch_": "web_fetch",
    "code_execution_": "code_execution",
    "bash_": "bash",
    "memory_": "memory",
    "tool_search_tool_regex_": "tool_search_tool_regex",
    "tool_search_tool_bm25_": "tool_search_tool_bm25",
}
MAX_BREAKPOINTS = 4


def _fixed_name(kind: str) -> str | None:
    for prefix, name in _FIXED_NAMES.items():
        if kind.startswith(prefix):
            return name
    return None


def check_tools(body: dict[str, Any]) -> Rejection | None:
    tools = body.get("tools")
    if tools is None:
        return None
    if not is_array(tools):
        return invalid("tools: Input should be a valid list")  # (our wording)
    names: list[str] = []
    for number, tool in enumerate(tools):
        problem = definition_problem(tool)
        if problem is not None:
            return invalid(f"tools.{number}{problem}")
        names.append(str(tool.get("name")))
    if len(set(names)) != len(names):
        return invalid("tools: Tool names must be unique.")  # [OBS]
    if tools and all(is_object(t) and t.get("defer_loading") is True for t in tools):
        return invalid(  # [DOC] "Troubleshooting tool use" names the error; the rest is our wording
            "tools: All tools have defer_loading: true. At least one tool must be loaded up front: leave "
            "`defer_loading` unset on one of them."
        )
    return None


def definition_problem(tool: Any) -> str | None:
    """What is wrong with one tool definition (a `tools` entry, or an inline `tool_definition`), as the tail of
    the error's path and message (".custom.name: String should match …"), or None."""
    if not is_object(tool):
        return ": Input should be a valid dictionary"  # (our wording)
    kind = str(tool.get("type") or "custom")
    name = tool.get("name")
    fixed = _fixed_name(kind) if kind != "custom" else None
    if fixed is not None and name != fixed:
        return f".{kind}.name: Input should be '{fixed}'"  # (our wording)
    if kind == "custom":
        problem = _custom_problem(tool)
        if problem is not None:
            return f".custom.{problem}"
    if tool.get("defer_loading") is True and tool.get("cache_control") is not None:
        # [DOC] "A deferred definition can't carry cache_control"; our wording
        return f".{kind}: a tool with defer_loading: true cannot carry cache_control"
    return None


def _custom_problem(tool: dict[str, Any]) -> str | None:
    name = tool.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        return "name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"  # [OBS]
    schema = tool.get("input_schema")
    if schema is None:
        return "input_schema: Field required"  # (our wording, pydantic's form)
    if not is_object(schema) or schema.get("type") != "object":
        return "input_schema.type: Input should be 'object'"  # (our wording, pydantic's form)
    return None


_NOT_BLOCKS = frozenset({"cache_control", "input_schema", "input"})  # a schema or tool input may name any key


def count_breakpoints(value: Any) -> int:
    """How many `cache_control` markers `value` carries, at any depth (not inside schemas or tool inputs)."""
    if is_object(value):
        own = 1 if value.get("cache_control") is not None else 0
        return own + sum(count_breakpoints(v) for k, v in value.items() if k not in _NOT_BLOCKS)
    if is_array(value):
        return sum(count_breakpoints(v) for v in value)
    return 0


def check_breakpoints(body: dict[str, Any]) -> Rejection | None:
    found = count_breakpoints(body)
    if found > MAX_BREAKPOINTS:
        return invalid(
            f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {found}."
        )
    return None
