"""MCP tolerant of what real servers send and do: a bad schema costs that tool only (and is named), a bare
object schema takes any object, progress reaches the card and keeps a slow call alive, a stalled call ends at
mcp_timeout, a crash mid-call is NOT_AVAILABLE naming the restart, an "image" that is text is left out.

Two real servers over stdio: tests/fixtures/mcp_raw_server.py (no SDK, as many third-party servers are: it
sends listings the SDKs refuse to) and tests/fixtures/mcp_echo_server.py --quirky (the `mcp` SDK)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from dispatch_harness import Approvals, ToolHarness

from jupyter_agent.builtin_tools.mcp import McpServers
from jupyter_agent.tools import (
    Approve,
    ToolPool,
    ToolResult,
)

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
RAW = {"command": sys.executable, "args": [str(FIXTURES / "mcp_raw_server.py")]}
QUIRKY = {"command": sys.executable, "args": [str(FIXTURES / "mcp_echo_server.py"), "--quirky"]}

Call = Callable[[str, dict[str, Any]], Awaitable[ToolResult]]


def with_server(
    config: dict[str, Any],
    tmp_path: Path,
    body: Callable[[McpServers, Call, list[tuple[str, str]]], Awaitable[None]],
    *,
    call_timeout: float = 60.0,
) -> None:
    """A server through a pool kept in sync as the session keeps it, and a Dispatcher whose calls record the
    progress they report."""

    async def scenario() -> None:
        pool = ToolPool()

        def sync() -> None:
            for source, tools in servers.sources().items():
                pool.set_source(source, tools)

        servers = McpServers(on_change=sync, call_timeout=call_timeout)
        servers.configure({"s": config})
        await servers.settled()
        progress: list[tuple[str, str]] = []

        tools = ToolHarness(
            tmp_path,
            pool=pool,
            approver=Approvals(Approve()),
            progress=lambda done, message: progress.append((done, message)),
        )
        try:
            await body(servers, tools.acall, progress)
        finally:
            await servers.aclose()

    asyncio.run(scenario())


def test_one_bad_schema_costs_only_its_tool_and_is_named(tmp_path: Path) -> None:
    async def body(servers: McpServers, call: Call, _: list[tuple[str, str]]) -> None:
        [status] = servers.statuses()
        assert status.state == "connected" and status.tools == 4
        assert (
            status.detail
            == "tool 'broken' skipped: its inputSchema has type 'array'; a tool's arguments are a JSON object"
        )
        assert (await call("mcp__s__good", {"q": "x"})).content == 'good got {"q": "x"}'
        assert (await call("mcp__s__no_type", {"q": "y"})).content == 'no_type got {"q": "y"}'
        missing = await call("mcp__s__no_type", {})
        assert missing.error_code == "INVALID_ARGS" and "- /q: expected a value (required)" in missing.content
        assert (await call("mcp__s__misdescribed", {})).content == "misdescribed got {}"
        broken = await call("mcp__s__broken", {})
        assert broken.error_code == "UNKNOWN_TOOL"

    with_server(RAW, tmp_path, body)


def test_a_bare_object_schema_accepts_any_object(tmp_path: Path) -> None:
    async def body(_: McpServers, call: Call, __: list[tuple[str, str]]) -> None:
        result = await call("mcp__s__anything", {"a": 1, "b": [2, {"c": None}]})
        assert result.content == 'anything got {"a": 1, "b": [2, {"c": null}]}'

    with_server(RAW, tmp_path, body)


def test_progress_notifications_reach_the_card_and_keep_a_slow_call_alive(tmp_path: Path) -> None:
    async def body(_: McpServers, call: Call, progress: list[tuple[str, str]]) -> None:
        result = await call("mcp__s__steps", {"count": 8})  # 8 × 0.05 s: longer than mcp_timeout in all
        assert result.content == "did 8 steps"
        assert progress == [(f"{n}/8", f"step {n}") for n in range(1, 9)]

    with_server(QUIRKY, tmp_path, body, call_timeout=0.3)


def test_a_call_without_answer_or_progress_ends_at_mcp_timeout(tmp_path: Path) -> None:
    async def body(_: McpServers, call: Call, __: list[tuple[str, str]]) -> None:
        result = await call("mcp__s__stall", {"seconds": 30})
        assert result.content == (
            "TIMEOUT: stall (MCP server 's') did not answer or report progress for 0.3 s (the mcp_timeout "
            "setting); the server may still be working on it"
        )
        assert (await call("mcp__s__echo", {"text": "still here"})).content == "echo: still here"

    with_server(QUIRKY, tmp_path, body, call_timeout=0.3)


def test_a_server_that_dies_mid_call_is_not_available_naming_the_restart_until_it_is_back(
    tmp_path: Path,
) -> None:
    async def body(servers: McpServers, call: Call, __: list[tuple[str, str]]) -> None:
        died = await call("mcp__s__crash", {})
        assert died.content == (
            "NOT_AVAILABLE: crash (MCP server 's'): the server closed the connection; `%agent mcp restart s` "
            "starts it again"
        )
        after = await call("mcp__s__echo", {"text": "hello?"})
        assert (
            after.error_code == "NOT_AVAILABLE" and "`%agent mcp restart s` starts it again" in after.content
        )
        await servers.restart("s")
        await servers.settled()
        assert (await call("mcp__s__echo", {"text": "back"})).content == "echo: back"

    with_server(QUIRKY, tmp_path, body)


def test_an_mcp_image_whose_bytes_are_text_is_left_out_with_a_note(tmp_path: Path) -> None:
    async def body(_: McpServers, call: Call, __: list[tuple[str, str]]) -> None:
        result = await call("mcp__s__fake_image", {})
        assert result.images == ()
        assert result.content == (
            "[image/png image omitted: its 27 bytes are not a PNG, JPEG, GIF or WebP image (they start b'this is ')]"
        )

    with_server(QUIRKY, tmp_path, body)


SHAPES = {"command": sys.executable, "args": [str(FIXTURES / "mcp_echo_server.py"), "--shapes"]}


def test_structured_content_is_checked_against_the_tools_output_schema(tmp_path: Path) -> None:
    async def body(_: McpServers, call: Call, __: list[tuple[str, str]]) -> None:
        conforming = await call("mcp__s__price", {"item": "pen"})
        assert (conforming.is_error, conforming.content) == (False, "pen: 1.5")
        wrong = await call("mcp__s__price", {"item": "cup"})
        assert wrong.content == (
            "EXECUTION_ERROR: price (MCP server 's') returned structuredContent that does not match its "
            "outputSchema at /price: 'cheap' is not of type 'number'"
        )
        bare = await call("mcp__s__bare", {})
        assert bare.content == (
            "EXECUTION_ERROR: bare (MCP server 's') declares an outputSchema but returned no structuredContent"
        )
        # tools whose output the SDK describes itself (a str return: {"result": string}) still conform
        assert (await call("mcp__s__echo", {"text": "hi"})).content == "echo: hi"

    with_server(SHAPES, tmp_path, body)


def test_resource_blocks_in_a_result_become_text_the_model_can_act_on(tmp_path: Path) -> None:
    async def body(_: McpServers, call: Call, __: list[tuple[str, str]]) -> None:
        linked = await call("mcp__s__linked", {})
        assert (linked.is_error, linked.content) == (
            False,
            "[resource link: note://todo (todo, text/plain): The to-do note; ReadMcpResource with server 's' and "
            "this uri reads it]\n[resource note://shopping]\nmilk, eggs",
        )
        read = await call("ReadMcpResource", {"server": "s", "uri": "note://todo"})
        assert read.content.endswith("write tests")

    with_server(SHAPES, tmp_path, body)
