"""MCP round trips with a real server written with the same SDK (tests/fixtures/mcp_echo_server.py):
over stdio and streamable HTTP, through a real Dispatcher, next to servers that fail to start."""

from __future__ import annotations

import asyncio
import base64
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import Approvals, ToolHarness

from jupyter_agent.builtin_tools.mcp import McpConnections, McpServers, connect_mcp_servers
from jupyter_agent.tools import (
    Approve,
    ToolPool,
)

ECHO_SERVER = Path(__file__).resolve().parents[3] / "fixtures" / "mcp_echo_server.py"
STDIO_ECHO = {"command": sys.executable, "args": [str(ECHO_SERVER)]}


def connected(connections: McpConnections, tmp_path: Path, approver: Approvals | None = None) -> ToolHarness:
    """The connected tools (one pool source per server) in the default mode; the approver approves."""
    sources = {f"mcp:{server}": tools for server, tools in connections.tools_by_server.items()}
    return ToolHarness(tmp_path, sources=sources, approver=approver or Approvals(Approve()))


def test_stdio_round_trip_with_annotations_schemas_results_and_errors(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with await connect_mcp_servers({"echo": STDIO_ECHO}) as connections:
            assert connections.errors == {}
            tools = {tool.name: tool for tool in connections.tools}
            assert sorted(tools) == [
                "mcp__echo__delete_note",
                "mcp__echo__echo",
                "mcp__echo__lookup",
                "mcp__echo__resize",
                "mcp__echo__snapshot",
            ]

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

            approvals = Approvals(Approve())
            session = connected(connections, tmp_path, approvals)
            text = await session.acall("mcp__echo__echo", {"text": "hello"})
            assert (text.is_error, text.content, text.images) == (False, "echo: hello", ())

            pictured = await session.acall("mcp__echo__echo", {"text": "plot", "with_image": True})
            assert pictured.content == "echo: plot"
            assert [(i.media_type, len(base64.b64decode(i.data))) for i in pictured.images] == [
                ("image/png", 70)
            ]
            assert approvals.requests == []  # read-only: no question

            deleted = await session.acall("mcp__echo__delete_note", {"name": "todo"})
            assert deleted.content == "deleted todo"
            assert [(r.tool, r.title) for r in approvals.requests] == [
                ("mcp__echo__delete_note", "mcp__echo__delete_note")
            ]

            failed = await session.acall("mcp__echo__delete_note", {"name": "todo"})
            assert failed.error_code == "EXECUTION_ERROR"
            assert failed.content == (
                "EXECUTION_ERROR: delete_note (MCP server 'echo') reported an error: Error executing tool "
                "delete_note: no note named 'todo'; notes: shopping"
            )

            invalid = await session.acall("mcp__echo__echo", {"text": 3, "loud": True})
            assert invalid.content == (
                "INVALID_ARGS: mcp__echo__echo was called with invalid arguments; fix them and call it again:\n"
                "- /loud: expected no such field, got true. Fix: remove `loud` (allowed fields: text, with_image)\n"
                "- /text: expected a string, got 3. Fix: set `text` to a string"
            )

        after = await session.acall("mcp__echo__echo", {"text": "still there?"})
        assert after.content == (
            "NOT_AVAILABLE: echo (MCP server 'echo') cannot run: the server is not connected (it stopped: it was "
            "closed); `%agent mcp restart echo` starts it again"
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
                "mcp__echo__lookup",
                "mcp__echo__resize",
                "mcp__echo__snapshot",
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
            result = await connected(connections, tmp_path).acall("mcp__echo__echo", {"text": "ok"})
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
            result = await connected(connections, tmp_path).acall("mcp__web__echo", {"text": "over http"})
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


def test_an_image_that_is_also_structured_content_is_sent_once_as_an_image(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with await connect_mcp_servers({"echo": STDIO_ECHO}) as connections:
            result = await connected(connections, tmp_path).acall("mcp__echo__snapshot", {})
            assert [i.media_type for i in result.images] == ["image/png"]
            assert result.images[0].data not in result.content
            assert len(result.content) < 100

    asyncio.run(scenario())


def test_a_root_ref_schema_accepts_valid_input_and_still_rejects_invalid_input(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with await connect_mcp_servers({"echo": STDIO_ECHO}) as connections:
            session = connected(connections, tmp_path)
            ok = await session.acall("mcp__echo__lookup", {"name": "root", "children": [{"name": "leaf"}]})
            assert (ok.is_error, ok.content) == (False, "found root with 1 children")
            missing = await session.acall("mcp__echo__lookup", {"children": []})
            assert missing.error_code == "INVALID_ARGS" and "/name" in missing.content
            schema = {t.name: t for t in connections.tools}["mcp__echo__lookup"].input_schema()
            assert "$ref" not in schema and schema["required"] == ["name"]

    asyncio.run(scenario())


def test_an_any_of_error_lists_the_alternatives(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with await connect_mcp_servers({"echo": STDIO_ECHO}) as connections:
            result = await connected(connections, tmp_path).acall("mcp__echo__resize", {"size": "big"})
            assert result.error_code == "INVALID_ARGS"
            assert result.content == (
                "INVALID_ARGS: mcp__echo__resize was called with invalid arguments; fix them and call it again:\n"
                "- /size: expected one of: (1) an integer; (2) an object with fields width, height (required: "
                'width, height), got "big". Fix: set `size` to one of: (1) an integer; (2) an object with fields '
                "width, height (required: width, height)"
            )

    asyncio.run(scenario())


def test_a_stray_stdout_line_is_reported_once_without_a_traceback(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    reports: list[str] = []

    async def scenario() -> None:
        servers = McpServers(report=reports.append)
        servers.configure({"noisy": {**STDIO_ECHO, "args": [str(ECHO_SERVER), "--noisy"]}})
        await servers.settled()
        try:
            [status] = servers.statuses()
            assert (status.state, status.detail) == ("connected", "1 stray stdout line(s) ignored")
        finally:
            await servers.aclose()

    asyncio.run(scenario())
    stray = [line for line in reports if "not MCP" in line]
    assert stray == [
        "MCP server 'noisy' wrote a line to stdout that is not MCP; ignored (servers must log to stderr; "
        "`%agent mcp` counts further ones): Starting echo server v1 (debug print on stdout)"
    ]
    assert "Traceback" not in capfd.readouterr().err
    # What the SDK logs (with the traceback) would reach a notebook's stderr through logging's last resort.
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []


def test_resources_are_listed_and_read_without_asking(tmp_path: Path) -> None:
    async def scenario() -> None:
        servers = McpServers()
        servers.configure({"echo": STDIO_ECHO})
        await servers.settled()
        try:
            approvals = Approvals(Approve())
            call = ToolHarness(tmp_path, sources=servers.sources(), approver=approvals).acall

            listing = await call("ListMcpResources", {})
            assert listing.content.splitlines()[0] == "Server 'echo': 2 resources"
            assert "- note://index  note_index (text/plain, The names of all notes)" in listing.content
            assert "- template note://{name}  note (text/plain, One note by name.)" in listing.content
            note = await call("ReadMcpResource", {"server": "echo", "uri": "note://shopping"})
            assert note.content == "milk, eggs"
            image = await call("ReadMcpResource", {"server": "echo", "uri": "image://pixel"})
            assert [i.media_type for i in image.images] == ["image/png"]
            wrong = await call("ReadMcpResource", {"server": "nope", "uri": "note://x"})
            assert wrong.content.startswith(
                "NOT_AVAILABLE: no MCP server named 'nope' offers resources (servers with resources: echo); call "
                "ListMcpResources without server to see them all"
            )
            assert approvals.requests == []
        finally:
            await servers.aclose()

    asyncio.run(scenario())


HANGS = {"command": sys.executable, "args": ["-c", "import time; time.sleep(120)"]}


def test_a_hanging_server_does_not_hold_up_the_others_and_its_tools_join_when_ready(tmp_path: Path) -> None:
    reports: list[str] = []

    async def scenario() -> None:
        echo_ready = asyncio.Event()

        def changed() -> None:
            if servers.sources().get("mcp:echo"):
                echo_ready.set()

        servers = McpServers(startup_timeout=600, on_change=changed, report=reports.append)
        servers.configure({"hangs": HANGS, "echo": STDIO_ECHO})
        assert {s.name: s.state for s in servers.statuses()} == {"echo": "connecting", "hangs": "connecting"}
        assert servers.sources()["mcp:echo"] == []  # nothing waited for: the caller goes on at once
        try:
            await asyncio.wait_for(echo_ready.wait(), 60)
            states = {s.name: s.state for s in servers.statuses()}
            assert states == {"echo": "connected", "hangs": "connecting"}
            assert reports == ["MCP server 'echo' connected: 5 tools"]
            result = await connected(_as_connections(servers), tmp_path).acall(
                "mcp__echo__echo", {"text": "now"}
            )
            assert result.content == "echo: now"
        finally:
            await servers.aclose()

    asyncio.run(scenario())


def _as_connections(servers: McpServers) -> McpConnections:
    by_server = {s.name: s.tools() for s in servers.connected()}
    return McpConnections(tools_by_server=by_server, servers=servers)


def test_a_crashed_server_is_reported_and_can_be_restarted(tmp_path: Path) -> None:
    """With no tries to reconnect by itself (test_mcp_reconnects.py has those), it is down until restarted."""
    reports: list[str] = []

    async def scenario() -> None:
        changed = asyncio.Event()
        pool = ToolPool()

        def sync_pool() -> None:  # what the session does on every change (host/build.py)
            for source, tools in servers.sources().items():
                pool.set_source(source, tools)
            changed.set()

        servers = McpServers(on_change=sync_pool, report=reports.append)
        servers.reconnect_delays = ()
        servers.configure({"echo": STDIO_ECHO})
        await servers.settled()
        try:
            first = servers.server("echo")
            assert first is not None and first.stderr is not None
            pid = int(first.stderr.text(wait=5).split("pid ")[1].rstrip(")\n"))
            session = ToolHarness(tmp_path, pool=pool, approver=Approvals(Approve()))
            changed.clear()
            os.kill(pid, signal.SIGKILL)
            gone = await session.acall("mcp__echo__echo", {"text": "anyone?"})
            assert gone.content == (
                "NOT_AVAILABLE: echo (MCP server 'echo'): the server closed the connection; "
                "`%agent mcp restart echo` starts it again"
            )
            while servers.statuses()[0].state != "down":
                await asyncio.wait_for(changed.wait(), 60)
                changed.clear()
            assert reports[-1] == (
                "MCP server 'echo' is down: it closed the connection; %agent mcp restart echo"
            )
            # the run's tool list still offers its tools: they answer NOT_AVAILABLE, never "no tool named …"
            again = await session.acall("mcp__echo__echo", {"text": "still?"})
            assert again.content == (
                "NOT_AVAILABLE: echo (MCP server 'echo') cannot run: the server is not connected (it is down: it "
                "closed the connection); `%agent mcp restart echo` starts it again"
            )
            resource = await session.acall("ReadMcpResource", {"server": "echo", "uri": "note://index"})
            assert resource.content == (
                "NOT_AVAILABLE: MCP server 'echo' is not connected (it is down: it closed the connection); "
                "`%agent mcp restart echo` starts it again"
            )
            listing = await session.acall("ListMcpResources", {})
            assert (
                "Server 'echo': not connected (it is down: it closed the connection); `%agent mcp restart"
                in (listing.content)
            )

            assert await servers.restart("echo") == ["echo"]
            await servers.settled()
            assert servers.statuses()[0].state == "connected"
            result = await connected(_as_connections(servers), tmp_path).acall(
                "mcp__echo__echo", {"text": "back"}
            )
            assert result.content == "echo: back"
            with pytest.raises(KeyError, match="no MCP server named 'other' \\(servers: echo\\)"):
                await servers.restart("other")
        finally:
            await servers.aclose()

    asyncio.run(scenario())


def test_a_changed_setting_starts_stops_and_restarts_only_what_changed() -> None:
    async def scenario() -> None:
        servers = McpServers()
        servers.configure({"echo": STDIO_ECHO})
        await servers.settled()
        try:
            echo = servers.server("echo")
            servers.configure({"echo": STDIO_ECHO, "typo": {"comand": "x"}})
            await servers.settled()
            assert servers.server("echo") is echo
            assert [(s.name, s.state) for s in servers.statuses()] == [
                ("echo", "connected"),
                ("typo", "failed"),
            ]
            servers.configure({"echo": {**STDIO_ECHO, "env": {"MODE": "2"}}})
            await servers.settled()
            assert servers.server("echo") is not echo
            assert [(s.name, s.state) for s in servers.statuses()] == [("echo", "connected")]
            assert echo is not None and echo.state == "stopped"
        finally:
            await servers.aclose()

    asyncio.run(scenario())


def test_colliding_tool_names_are_reported_and_every_tool_stays_reachable(tmp_path: Path) -> None:
    def colliding(tag: str) -> dict[str, Any]:
        return {"command": sys.executable, "args": [str(ECHO_SERVER), "--colliding", tag]}

    def identifying(connections: McpConnections) -> list[str]:
        return [t.name for t in connections.tools if t.description.startswith("Say which tool this is")]

    async def scenario() -> None:
        servers = {"evil": colliding("evil"), "evil__b": colliding("evil__b")}
        async with await connect_mcp_servers(servers) as connections:
            assert connections.errors == {}
            names = [tool.name for tool in connections.tools]
            assert len(names) == len(set(names))  # no tool shadows another
            # evil + b__c and evil__b + c both map to mcp__evil__b__c; my.time and my_time to …__my_time
            collided = "\n".join(connections.notices)
            assert "collide as mcp__evil__b__c" in collided and "collide as mcp__evil__my_time" in collided
            assert "'b__c' of server 'evil'" in collided and "'c' of server 'evil__b'" in collided
            assert "collide as mcp__evil__b__my_time" in collided
            assert "mcp__evil__b__c" not in names and "mcp__evil__my_time" not in names

            session = connected(connections, tmp_path)
            found = identifying(connections)
            answers = sorted([(await session.acall(name, {})).content for name in found])
            tools = ("b__c", "c", "my.time", "my_time")
            assert answers == sorted(f"{tag}/{tool}" for tag in ("evil", "evil__b") for tool in tools)

            async with await connect_mcp_servers(dict(reversed(servers.items()))) as again:
                assert sorted(identifying(again)) == sorted(found)  # the same names, whatever the order

    asyncio.run(scenario())


def test_a_collision_is_reported_once_through_the_background_servers() -> None:
    async def scenario() -> None:
        lines: list[str] = []
        manager = McpServers(report=lines.append)
        server = {"command": sys.executable, "args": [str(ECHO_SERVER), "--colliding", "x"]}
        manager.configure({"evil": server})
        await manager.settled()
        manager.configure({"evil": server, "evil__b": server})  # the second connects later
        await manager.settled()
        try:
            pooled = [t.name for tools in manager.sources().values() for t in tools]
            assert len(pooled) == len(set(pooled))
            assert sum("collide as mcp__evil__b__c" in line for line in lines) == 1, lines
        finally:
            await manager.aclose()

    asyncio.run(scenario())
