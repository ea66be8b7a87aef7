"""300 MCP tools: the first request declares them deferred behind Anthropic's tool search tool (its non-deferred
tools stay small), the model finds one with a search the strict scripted server runs over the request's deferred
tools, and calls it end to end through the real client and a real MCP server; the prefix never changes and the
found tool is not told again."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_testkit import Harness, HarnessFactory, result_text, tool_results

from jupyter_agent.agent.briefing import first_tools
from jupyter_agent.agent.deferral import MAX_MCP_BYTES, SEARCH_TOOL
from jupyter_agent.builtin_tools.mcp import McpServers
from jupyter_agent.host.texts import tools_report
from jupyter_agent.testing import ServerToolUse, Text, ToolUse, Turn

ECHO_SERVER = Path(__file__).resolve().parents[3] / "fixtures" / "mcp_echo_server.py"
MANY = {"command": sys.executable, "args": [str(ECHO_SERVER), "--many", "300"]}


def _bytes(definitions: list[dict[str, Any]]) -> int:
    return sum(len(json.dumps(d, separators=(",", ":")).encode()) for d in definitions)


@pytest.fixture
def many_tools(harness: HarnessFactory) -> Iterator[Harness]:
    h = harness(
        [
            Turn(
                blocks=[
                    ServerToolUse(name="tool_search_tool_regex", input={"pattern": "(?i)weather"}),
                    ToolUse(name="mcp__many__forecast_weather", input={"city": "Oslo"}),
                ]
            ),
            Turn(blocks=[ToolUse(name="mcp__many__forecast_weather", input={"city": "Bergen"})]),
            Turn(blocks=[Text("sunny in both")]),
        ]
    )

    def sync_pool() -> None:
        for source, tools in servers.sources().items():
            h.session.pool.set_source(source, tools)

    servers = McpServers(on_change=sync_pool)

    async def connect() -> None:
        servers.configure({"many": MANY})
        await servers.settled()

    h.worker.submit(connect()).result(timeout=60)
    yield h
    h.worker.submit(servers.aclose()).result(timeout=30)


def test_300_mcp_tools_are_deferred_and_one_is_found_and_called(many_tools: Harness) -> None:
    h = many_tools
    assert len([n for n in h.session.pool.active() if n.startswith("mcp__many__")]) == 306
    h.run("what is the weather in Oslo and Bergen?")

    first, second, third = h.server.requests
    mcp = [t for t in first["tools"] if t["name"].startswith("mcp__")]
    loaded = [t for t in first["tools"] if not t.get("defer_loading")]
    assert len(mcp) == 306 and all(t["defer_loading"] is True for t in mcp)
    assert {k: v for k, v in loaded[-1].items() if k != "cache_control"} == SEARCH_TOOL
    assert not [t for t in loaded if t["name"].startswith("mcp__")]
    assert _bytes(loaded) < _bytes(mcp) / 5 and _bytes(mcp) > MAX_MCP_BYTES  # bounded: the built-ins only

    searched = second["messages"][-2]["content"]
    assert [b["type"] for b in searched] == ["server_tool_use", "tool_search_tool_result", "tool_use"]
    assert searched[1]["content"] == {
        "type": "tool_search_tool_search_result",
        "tool_references": [{"type": "tool_reference", "tool_name": "mcp__many__forecast_weather"}],
    }
    assert result_text(tool_results(second)[0]) == "forecast for Oslo: sunny"
    assert result_text(tool_results(third)[0]) == "forecast for Bergen: sunny"
    for body in (second, third):  # the prefix as it was, and no tool is told: the search found it
        assert body["tools"] == first["tools"] or _plain(body["tools"]) == _plain(first["tools"])
        assert not [m for m in body["messages"] if m["role"] == "system"]


def test_tools_says_they_are_deferred_and_bedrock_gets_them_in_full(many_tools: Harness) -> None:
    h = many_tools
    before = tools_report(h.session).text.splitlines()[-1]
    assert (
        before == "306 MCP tools: the first request declares them deferred, found by tool_search_tool_regex"
    )
    h.run("anything")
    after = tools_report(h.session).text.splitlines()[-1]
    assert after == "deferred: 306 MCP tools, found by tool_search_tool_regex (past 40 tools or 20000 bytes)"

    on_bedrock = first_tools(h.session.pool, 0, "bedrock")  # no server tools there: every definition in full
    assert SEARCH_TOOL["name"] not in on_bedrock
    assert not [d for d in on_bedrock.values() if d.get("defer_loading")]
    h.session.config = dataclasses.replace(h.session.config, provider="bedrock")
    h.session.conversation.reset()
    assert tools_report(h.session).text.splitlines()[-1] == (
        "306 MCP tools declared in full: the bedrock endpoint does not run Anthropic's tool search tool"
    )


def _plain(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in t.items() if k != "cache_control"} for t in tools]
