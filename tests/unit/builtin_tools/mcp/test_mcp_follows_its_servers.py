"""MCP servers that change: a server's tool-list change is followed the append-only way (`tool_removal` /
`tool_addition` in a system message, the prefix untouched, no 400 from the strict scripted server), and a call
to a tool the server removed is refused at dispatch naming the tool and the server. Real servers (the `mcp` SDK's
and one without an SDK), the real anthropic client, a real worker loop."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_testkit import Harness, HarnessFactory, assert_valid_request, result_text, tool_results

from jupyter_agent.agent.prefix import INLINE_TOOLS_BETA
from jupyter_agent.builtin_tools.mcp import McpServers
from jupyter_agent.testing import Text, ToolUse, Turn

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
CHANGING = {"command": sys.executable, "args": [str(FIXTURES / "mcp_echo_server.py"), "--changing"]}
RAW_CHANGING = {"command": sys.executable, "args": [str(FIXTURES / "mcp_raw_server.py"), "--changing"]}

Follow = Callable[[Harness, dict[str, dict[str, Any]]], tuple[McpServers, list[str]]]


@pytest.fixture
def follow() -> Iterator[Follow]:
    """Start servers on the harness's worker loop, wired to its pool as the kernel host wires them."""
    started: list[tuple[Harness, McpServers]] = []

    def start(h: Harness, config: dict[str, dict[str, Any]]) -> tuple[McpServers, list[str]]:
        lines: list[str] = []

        def sync_pool() -> None:
            for source, tools in servers.sources().items():
                h.session.pool.set_source(source, tools)

        servers = McpServers(on_change=sync_pool, report=lines.append)

        async def connect() -> None:
            servers.configure(config)
            await servers.settled()

        h.worker.submit(connect()).result(timeout=60)
        started.append((h, servers))
        return servers, lines

    yield start
    for h, servers in started:
        h.worker.submit(servers.aclose()).result(timeout=30)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _prefix(body: dict[str, Any]) -> str:
    return json.dumps(_plain([body["system"], body.get("tools", [])]))


def _definition(h: Harness, name: str) -> dict[str, Any]:
    return h.session.pool.active()[name].to_param()


def test_a_server_that_changes_its_tools_during_a_call_is_followed_the_append_only_way(
    harness: HarnessFactory, follow: Follow
) -> None:
    h = harness(
        [
            Turn(blocks=[ToolUse(name="mcp__echo__reshape", input={})]),
            Turn(
                blocks=[
                    ToolUse(name="mcp__echo__extra", input={"text": "hi"}),
                    ToolUse(name="mcp__echo__lookup", input={"name": "x"}),
                ]
            ),
            Turn(blocks=[Text("done")]),
        ]
    )
    _, lines = follow(h, {"echo": CHANGING})
    h.run("reshape the server")

    first, second, third = h.server.requests
    assert _prefix(first) == _prefix(second) == _prefix(third)  # the cache prefix stays
    sent = [tool["name"] for tool in first["tools"]]
    assert "mcp__echo__lookup" in sent and "mcp__echo__extra" not in sent
    [change] = [m for m in second["messages"] if m["role"] == "system"]
    assert _plain(change["content"]) == [
        {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "mcp__echo__lookup"}},
        {
            "type": "tool_addition",
            "tool": {"type": "tool_definition", "definition": _definition(h, "mcp__echo__extra")},
        },
        {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "mcp__echo__resize"}},
        {
            "type": "tool_addition",
            "tool": {"type": "tool_definition", "definition": _definition(h, "mcp__echo__resize")},
        },
    ]
    assert _definition(h, "mcp__echo__resize")["description"] == "Resize, as reshaped."
    assert _plain([m for m in third["messages"] if m["role"] == "system"]) == [_plain(change)]  # told once
    added, gone = tool_results(third)
    assert (added.get("is_error"), result_text(added)) == (None, "extra: hi")
    assert gone["is_error"] is True
    assert result_text(gone) == (
        "NOT_AVAILABLE: mcp__echo__lookup is not available now: the MCP server 'echo' no longer offers it; do "
        "not call it until you are told it is back"
    )
    recorded = [r for r in h.server.recorded if r.index is not None]
    assert INLINE_TOOLS_BETA in recorded[1].headers.get("anthropic-beta", "")
    assert_valid_request(third)
    assert "MCP server 'echo' changed its tools: now offers extra, resize; no longer lookup" in lines


def test_a_2025_protocol_servers_list_changed_notification_is_followed(
    harness: HarnessFactory, follow: Follow
) -> None:
    h = harness(
        [
            Turn(blocks=[ToolUse(name="mcp__raw__good", input={"q": "drop"})]),
            Turn(blocks=[ToolUse(name="mcp__raw__anything", input={})]),
            Turn(blocks=[Text("done")]),
        ],
        mode="bypassPermissions",  # the server's tools carry no read-only hint
    )
    _, lines = follow(h, {"raw": RAW_CHANGING})
    h.run("drop one")
    assert "MCP server 'raw' changed its tools: no longer anything" in lines
    _, second, third = h.server.requests
    [change] = [m for m in second["messages"] if m["role"] == "system"]
    assert _plain(change["content"]) == [
        {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "mcp__raw__anything"}}
    ]
    [refused] = tool_results(third)
    assert result_text(refused).startswith(
        "NOT_AVAILABLE: mcp__raw__anything is not available now: the MCP server 'raw' no longer offers it"
    )


def test_a_change_between_runs_is_told_at_the_next_request(harness: HarnessFactory, follow: Follow) -> None:
    h = harness([Turn(blocks=[Text("one")]), Turn(blocks=[Text("two")])])
    servers, _ = follow(h, {"echo": CHANGING})
    h.run("first")
    server = servers.server("echo")
    assert server is not None and server.client is not None
    client = server.client

    async def reshape_elsewhere() -> None:  # another client of the same server, as it were: call it directly
        await client.call_tool("reshape", {})
        for _ in range(200):
            if "mcp__echo__extra" in h.session.pool.active():
                return
            await asyncio.sleep(0.05)

    h.worker.submit(reshape_elsewhere()).result(timeout=30)
    h.run("second")
    _, second = h.server.requests
    [change] = [m for m in second["messages"] if m["role"] == "system"]
    names = [(b["type"], b["tool"].get("name") or b["tool"]["definition"]["name"]) for b in change["content"]]
    assert names == [
        ("tool_removal", "mcp__echo__lookup"),
        ("tool_addition", "mcp__echo__extra"),
        ("tool_removal", "mcp__echo__resize"),
        ("tool_addition", "mcp__echo__resize"),
    ]
