"""Anthropic's tool search tool, run by the scripted server as the API runs it (docs "Tool search tool").

A script has the model search with `ServerToolUse(name="tool_search_tool_regex", input={"pattern": …})` (or
`tool_search_tool_bm25` with `{"query": …}`); the server answers it itself, as the API does, with the block after
it: a `tool_search_tool_result` whose content is a `tool_search_tool_search_result` of `tool_reference`s to the
request's deferred tools that match (names, descriptions, argument names and descriptions; at most
`MAX_RESULTS`), or a `tool_search_tool_result_error` (`invalid_tool_input`: a pattern that does not compile or
is longer than 200 characters; the SDK's error codes are invalid_tool_input, unavailable, too_many_requests,
execution_time_exceeded).

What it refuses, as the API does: a search tool that is itself deferred (400); a request whose history holds a
`tool_reference` to a tool `tools` does not declare (400); a search in a script whose request declares no search
tool, and a scripted `tool_use` of a deferred tool no search (nor `tool_addition`) has loaded yet: the model cannot
call what it was never shown, so that is the script's mistake (answered 500, like a script that ran out).
The docs give the error codes; the messages are our wording. BM25 is approximated by "every query word appears".
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from typing import Any

from ..base.json_values import is_object
from .script import Block, Recorded, ToolUse, Turn
from .server_tools import ServerToolUse, server_tool_id
from .strict.canonical import array
from .strict.rejection import Rejection, invalid

SEARCH_NAMES = {
    "tool_search_tool_regex_": "tool_search_tool_regex",
    "tool_search_tool_bm25_": "tool_search_tool_bm25",
}
MAX_PATTERN = 200
MAX_RESULTS = 5


def _tools(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [t for t in array(body.get("tools")) if is_object(t)]


def _is_search(tool: Mapping[str, Any]) -> bool:
    return str(tool.get("type", "")).startswith("tool_search_tool_")


def _searchable_text(tool: Mapping[str, Any]) -> str:
    schema = tool.get("input_schema")
    properties = schema.get("properties") if is_object(schema) else None
    parts = [str(tool.get("name", "")), str(tool.get("description", ""))]
    if is_object(properties):
        for name, spec in properties.items():
            parts.append(str(name))
            if is_object(spec) and isinstance(spec.get("description"), str):
                parts.append(spec["description"])
    return "\n".join(parts)


def _error(message: str) -> dict[str, Any]:
    return {
        "type": "tool_search_tool_result_error",
        "error_code": "invalid_tool_input",
        "error_message": message,
    }


def search_content(body: Mapping[str, Any], name: str, tool_input: Mapping[str, Any]) -> dict[str, Any]:
    """The result's `content` for one search over the request's deferred tools."""
    hidden = [t for t in _tools(body) if t.get("defer_loading") is True]
    if name == "tool_search_tool_bm25":
        words = str(tool_input.get("query", "")).lower().split()
        found = [t for t in hidden if words and all(w in _searchable_text(t).lower() for w in words)]
    else:
        pattern = str(tool_input.get("pattern", ""))
        if len(pattern) > MAX_PATTERN:
            return _error(f"the pattern is {len(pattern)} characters long; at most {MAX_PATTERN} are allowed")
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            return _error(f"the pattern is not a valid Python regular expression: {exc}")
        found = [t for t in hidden if compiled.search(_searchable_text(t))]
    return {
        "type": "tool_search_tool_search_result",
        "tool_references": [{"type": "tool_reference", "tool_name": str(t.get("name"))} for t in found][
            :MAX_RESULTS
        ],
    }


def _loaded(body: Mapping[str, Any]) -> set[str]:
    """The deferred tools the conversation has loaded: found by a search, or added by a `tool_addition`."""
    names: set[str] = set()
    for message in array(body.get("messages")):
        for block in array(message.get("content")) if is_object(message) else []:
            if not is_object(block):
                continue
            if block.get("type") == "tool_search_tool_result" and is_object(content := block.get("content")):
                names |= {
                    str(r.get("tool_name")) for r in array(content.get("tool_references")) if is_object(r)
                }
            tool = block.get("tool") if block.get("type") == "tool_addition" else None
            if is_object(tool) and tool.get("type") == "tool_reference":
                names.add(str(tool.get("name")))
    return names


def answered(turn: Turn, body: Mapping[str, Any], index: int) -> Turn | str:
    """The turn with each tool search answered (the result block after its call), or the script's mistake."""
    tools = _tools(body)
    offered = {str(t.get("name")) for t in tools if _is_search(t)}
    hidden = {str(t.get("name")) for t in tools if t.get("defer_loading") is True}
    loaded = _loaded(body)
    blocks: list[Block] = []
    for block in turn.blocks:
        if isinstance(block, ToolUse) and block.name in hidden and block.name not in loaded:
            return (
                f"the script has the model call '{block.name}', a deferred tool no tool search has found in this "
                "conversation: the model cannot call a tool it was never shown; script a search first"
            )
        blocks.append(block)
        if isinstance(block, ServerToolUse) and block.name in SEARCH_NAMES.values():
            if block.name not in offered:
                return f"the script has the model call '{block.name}', which this request does not declare in `tools`"
            call_id = server_tool_id(block, index, len(blocks) - 1)
            content = search_content(body, block.name, block.input)
            loaded |= {str(r["tool_name"]) for r in content.get("tool_references", [])}
            result = {"type": "tool_search_tool_result", "tool_use_id": call_id, "content": content}
            blocks.append(Recorded(result))
    return dataclasses.replace(turn, blocks=blocks)


def tool_search_problem(body: Mapping[str, Any]) -> Rejection | None:
    """The API's 400 for a deferred search tool, or a `tool_reference` in the history to an undeclared tool."""
    tools = _tools(body)
    for number, tool in enumerate(tools):
        if _is_search(tool) and tool.get("defer_loading") is True:
            return invalid(f"tools.{number}: the tool search tool cannot have defer_loading: true")
    declared = {str(t.get("name")) for t in tools}
    for message_number, message in enumerate(array(body.get("messages"))):
        for block_number, block in enumerate(array(message.get("content")) if is_object(message) else []):
            content = block.get("content") if is_object(block) else None
            if not (
                is_object(block) and block.get("type") == "tool_search_tool_result" and is_object(content)
            ):
                continue
            for reference in array(content.get("tool_references")):
                name = reference.get("tool_name") if is_object(reference) else None
                if name not in declared:
                    where = f"messages.{message_number}.content.{block_number}"
                    return invalid(
                        f"{where}: Tool reference '{name}' has no corresponding tool definition; keep every tool a "
                        f"search found in `tools` ({json.dumps(name)} is not there)"
                    )
    return None
