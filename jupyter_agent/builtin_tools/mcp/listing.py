"""A server's tools, listed so that one bad tool cannot take the others down.

The SDK's typed `list_tools` validates the whole page: one tool whose input schema has no root `type` made
it raise, and every tool of that server was unavailable. So when the typed listing fails, the page is asked
for again as plain JSON and each tool is taken on its own: repaired where the intent is clear (an input
schema without a root `type` is an object schema; a `description`, `annotations`, `outputSchema` or
`execution` that is not what the spec says is dropped — the cautious defaults apply), skipped otherwise,
and every skipped tool is named with the reason (`%agent mcp` shows it).

The plain-JSON request uses the SDK session's own request path (its private `_stamp` and dispatcher), so the
protocol's headers and timeouts stay the SDK's; it is only taken after the typed listing failed.
"""

from __future__ import annotations

import logging
from typing import Any

import mcp.types as mcp_types
from pydantic import ValidationError

from ...base.json_values import is_array, is_object
from .paging import pages

log = logging.getLogger(__name__)

#: Fields a tool may carry that the SDK validates; a wrong one is dropped rather than losing the tool.
_OPTIONAL = ("description", "annotations", "outputSchema", "execution", "title", "icons", "_meta")


async def list_tools(client: Any) -> tuple[list[mcp_types.Tool], dict[str, str]]:
    """(the tools to offer, tool name → why it is not offered)."""
    try:
        return await pages(lambda cursor: client.list_tools(cursor=cursor), "tools"), {}
    except ValidationError as exc:
        log.info("the typed tool listing failed, listing tool by tool: %s", exc)
    tools: list[mcp_types.Tool] = []
    skipped: dict[str, str] = {}
    for index, raw in enumerate(await _raw_tools(client)):
        tool = repaired_tool(raw)
        if isinstance(tool, str):
            name = raw.get("name") if is_object(raw) and isinstance(raw.get("name"), str) else f"#{index + 1}"
            skipped[str(name)] = tool
        else:
            tools.append(tool)
    absorb = getattr(client.session, "_absorb_tool_listing", None)
    if callable(absorb):  # the session keeps per-tool state (output schemas, headers) from its listings
        absorb(mcp_types.ListToolsResult(tools=tools), complete=True)
    return tools, skipped


async def _raw_tools(client: Any) -> list[Any]:
    session = client.session
    found: list[Any] = []
    cursor: str | None = None
    for _ in range(50):
        params = mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
        request = mcp_types.ListToolsRequest(params=params)
        data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
        options: dict[str, Any] = {}
        session._stamp(data, options)
        timeout = getattr(session, "_session_read_timeout_seconds", None)
        if timeout is not None:
            options["timeout"] = timeout
        page = await session._dispatcher.send_raw_request(data["method"], data.get("params"), options)
        items = page.get("tools") if is_object(page) else None
        if is_array(items):
            found.extend(items)
        next_cursor = page.get("nextCursor") if is_object(page) else None
        if not isinstance(next_cursor, str) or not next_cursor:
            break
        cursor = next_cursor
    return found


def repaired_tool(raw: Any) -> mcp_types.Tool | str:
    """The tool, repaired where its intent is clear, or why it cannot be offered."""
    if not is_object(raw):
        return "its listing entry is not a JSON object"
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        return "it has no name"
    entry = dict(raw)
    schema = entry.get("inputSchema")
    if schema is None:
        schema = {"type": "object"}
    if not is_object(schema):
        return f"its inputSchema is not a JSON object ({type(schema).__name__})"
    kind = schema.get("type")
    if kind is None:
        schema = {**schema, "type": "object"}  # a schema of fields without its root type: an object schema
    elif kind != "object":
        return f"its inputSchema has type {kind!r}; a tool's arguments are a JSON object"
    entry["inputSchema"] = schema
    for field in _OPTIONAL:
        if field in entry and not _valid_alone(entry, field):
            entry.pop(field)
    try:
        return mcp_types.Tool.model_validate(entry, by_name=False)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "/".join(str(part) for part in first["loc"]) or "the entry"
        return f"its listing does not follow the MCP schema at {where}: {first['msg']}"


def _valid_alone(entry: dict[str, Any], field: str) -> bool:
    """Whether `field` passes the SDK's validation (checked with only the required fields beside it)."""
    probe = {"name": entry["name"], "inputSchema": {"type": "object"}, field: entry[field]}
    try:
        mcp_types.Tool.model_validate(probe, by_name=False)
    except ValidationError:
        return False
    return True
