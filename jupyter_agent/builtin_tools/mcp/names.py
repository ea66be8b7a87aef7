"""The pool names of MCP tools: `mcp__<server>__<tool>`, in the characters the API accepts, unique per session.

Apart from the connection code so that rule checks and the server manager name tools without the MCP SDK.
"""

from __future__ import annotations

import hashlib
import re

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_MAX_NAME = 64


def tool_name(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>`, made of the characters the API accepts, at most 64 (a hash keeps it unique)."""
    name = f"mcp__{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"
    if len(name) <= _MAX_NAME:
        return name
    digest = hashlib.sha1(name.encode()).hexdigest()[:8]
    return f"{name[: _MAX_NAME - 9]}_{digest}"  # cut-ok: a tool name, not text for a reader


def unique_tool_names(pairs: list[tuple[str, str]]) -> tuple[dict[tuple[str, str], str], list[str]]:
    """A name for every (server, tool) pair, and a notice for each collision.

    `tool_name` can give two tools the same name (`evil` + `b__c` and `evil__b` + `c`; `my.time` and
    `my_time`). Each tool of such a group gets a suffix from a hash of its own server and tool names, so every
    tool stays reachable and its name does not depend on which server answered first."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for pair in dict.fromkeys(pairs):
        groups.setdefault(tool_name(*pair), []).append(pair)
    names: dict[tuple[str, str], str] = {}
    notices: list[str] = []
    for name, members in groups.items():
        if len(members) == 1:
            names[members[0]] = name
            continue
        renamed: list[str] = []
        for server, tool in members:
            digest = hashlib.sha1(f"{server}\0{tool}".encode()).hexdigest()[:6]
            names[server, tool] = unique = f"{name[: _MAX_NAME - 7]}_{digest}"  # cut-ok: a tool name
            renamed.append(f"'{tool}' of server '{server}' as {unique}")
        notices.append(f"MCP tool names collide as {name}: offered {', '.join(renamed)}")
    return names, notices
