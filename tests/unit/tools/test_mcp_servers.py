"""MCP round trips with a real server written with the same SDK (tests/fixtures/mcp_echo_server.py):
over stdio and streamable HTTP, through a real Dispatcher, next to servers that fail to start."""

from __future__ import annotations

import asyncio
import base64
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_agent.tools import (
    Approval,
    ApprovalRequest,
    Approve,
    Dispatcher,
    PermissionPolicy,
    Sandbox,
    ToolCall,
    ToolContext,
    ToolPool,
    ToolResult,
)
from jupyter_agent.tools.mcp import McpConnections, connect_mcp_servers

ECHO_SERVER = Path(__file__).resolve().parents[2] / "fixtures" / "mcp_echo_server.py"
STDIO_ECHO = {"command": sys.executable, "args": [str(ECHO_SERVER)]}


class Session:
    """A pool of the connected tools and a dispatcher in the default mode, recording what it asked."""

    def __init__(self, connections: McpConnections, tmp_path: Path) -> None:
        self.asked: list[ApprovalRequest] = []
        pool = ToolPool()
        for server, tools in connections.tools_by_server.items():
            pool.set_source(f"mcp:{server}", tools)
        self.dispatcher = Dispatcher(
            pool=pool, policy=PermissionPolicy(mode="default"), approver=self._approve
        )
        self.ctx = ToolContext(sandbox=Sandbox.at(tmp_path))

    async def _approve(self, request: ApprovalRequest) -> Approval:
        self.asked.append(request)
        return Approve()

    async def call(self, name: str, args: dict[str, Any]) -> ToolResult:
        return (await self.dispatcher.dispatch(ToolCall(id="t1", name=name, input=args), self.ctx)).result


def test_stdio_round_trip_with_annotations_schemas_results_and_errors(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with await connect_mcp_servers({"echo": STDIO_ECHO}) as connections:
            assert connections.errors == {}
            tools = {tool.name: tool for tool in connections.tools}
            assert sorted(tools) == ["mcp__echo__delete_note", "mcp__echo__echo"]

            echo, delete = tools["mcp__echo__echo"], tools["mcp__echo__delete_note"]
            assert (echo.kind, echo.read_only, echo.annotations.destructive, echo.annotations.open_world) == (
                "read",
                True,
                False,
                False,
            )
            assert (delete.kind, delete.read_only, delete.annotations.destructive) == ("other", False, True)
            assert delete.annotations.idempotent
            assert echo.to_param() == {
                "name": "mcp__echo__echo",
                "description": "Return the text unchanged (and a 1x1 PNG when asked).",
                "input_schema": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string"},
                        "with_image": {"default": False, "type": "boolean"},
                    },
                    "required": ["text"],
                    "additionalProperties": False,
                },
            }

            session = Session(connections, tmp_path)
            text = await session.call("mcp__echo__echo", {"text": "hello"})
            assert (text.is_error, text.content, text.images) == (False, "echo: hello", ())

            pictured = await session.call("mcp__echo__echo", {"text": "plot", "with_image": True})
            assert pictured.content == "echo: plot"
            assert [(i.media_type, len(base64.b64decode(i.data))) for i in pictured.images] == [
                ("image/png", 70)
            ]
            assert session.asked == []  # read-only: no question

            deleted = await session.call("mcp__echo__delete_note", {"name": "todo"})
            assert deleted.content == "deleted todo"
            assert [(r.tool, r.title) for r in session.asked] == [
                ("mcp__echo__delete_note", "mcp__echo__delete_note")
            ]

            failed = await session.call("mcp__echo__delete_note", {"name": "todo"})
            assert failed.error_code == "EXECUTION_ERROR"
            assert failed.content == (
                "EXECUTION_ERROR: delete_note (MCP server 'echo') reported an error: Error executing tool "
                "delete_note: no note named 'todo'; notes: shopping"
            )

            invalid = await session.call("mcp__echo__echo", {"text": 3, "loud": True})
            assert invalid.content == (
                "INVALID_ARGS: mcp__echo__echo was called with invalid arguments; fix them and call it again:\n"
                "- /loud: expected no such field, got true. Fix: remove `loud` (allowed fields: text, with_image)\n"
                "- /text: expected a string, got 3. Fix: set `text` to a string"
            )

        after = await session.call("mcp__echo__echo", {"text": "still there?"})
        assert after.content == (
            "NOT_AVAILABLE: echo (MCP server 'echo') cannot run: the server is not connected (it was closed); "
            "tell the user, it needs a restart of the agent's session"
        )

    asyncio.run(scenario())


def test_servers_that_fail_are_reported_once_and_the_others_work(tmp_path: Path) -> None:
    crash = "import sys; print('config.toml: missing [auth] section', file=sys.stderr); sys.exit(3)"
    servers: dict[str, dict[str, Any]] = {
        "missing": {"command": "/nonexistent/mcp-server", "args": ["--port", "1"]},
        "crashing": {"command": sys.executable, "args": ["-c", crash]},
        "echo": STDIO_ECHO,
        "unset": {"command": "server", "env": {"TOKEN": "${JUPYTER_AGENT_TEST_UNSET_VARIABLE}"}},
        "typo": {"comand": "server"},
    }

    async def scenario() -> None:
        async with await connect_mcp_servers(servers) as connections:
            assert sorted(tool.name for tool in connections.tools) == [
                "mcp__echo__delete_note",
                "mcp__echo__echo",
            ]
            assert sorted(connections.errors) == ["crashing", "missing", "typo", "unset"]
            assert connections.errors["missing"] == (
                "MCP server 'missing' did not start: FileNotFoundError: [Errno 2] No such file or directory: "
                "'/nonexistent/mcp-server'\n  command: /nonexistent/mcp-server --port 1"
            )
            assert connections.errors["crashing"].startswith("MCP server 'crashing' did not start: ")
            assert connections.errors["crashing"].endswith(
                "  stderr:\n    config.toml: missing [auth] section"
            )
            assert f"  command: {sys.executable} -c import sys;" in connections.errors["crashing"]
            assert connections.errors["unset"] == (
                "MCP server 'unset' is not configured correctly: the environment variable "
                "JUPYTER_AGENT_TEST_UNSET_VARIABLE is not set (used as ${JUPYTER_AGENT_TEST_UNSET_VARIABLE})"
            )
            assert connections.errors["typo"] == (
                'MCP server \'typo\' is not configured correctly: add "command" (a program to start, with "args") '
                'or "url" (a streamable HTTP endpoint)'
            )
            result = await Session(connections, tmp_path).call("mcp__echo__echo", {"text": "ok"})
            assert result.content == "echo: ok"

    asyncio.run(scenario())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_echo_url() -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, str(ECHO_SERVER), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("the HTTP echo server did not start") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


def test_streamable_http_round_trip_with_headers(tmp_path: Path, http_echo_url: str) -> None:
    async def scenario() -> None:
        config = {"web": {"type": "http", "url": http_echo_url, "headers": {"X-Team": "data"}}}
        async with await connect_mcp_servers(config) as connections:
            assert connections.errors == {}
            result = await Session(connections, tmp_path).call("mcp__web__echo", {"text": "over http"})
            assert result.content == "echo: over http"

    asyncio.run(scenario())


def test_a_server_that_never_answers_is_given_up_on_and_stopped(tmp_path: Path) -> None:
    silent = "import os, sys, time; print(os.getpid(), file=sys.stderr, flush=True); time.sleep(60)"

    async def scenario() -> None:
        servers = {"silent": {"command": sys.executable, "args": ["-c", silent]}}
        connections = await connect_mcp_servers(servers, startup_timeout=0.5)
        await connections.aclose()
        message = connections.errors["silent"]
        assert message.startswith(
            "MCP server 'silent' did not start: it did not finish starting within 0.5 s\n"
        )
        pid = int(message.splitlines()[-1])
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()

    asyncio.run(scenario())
