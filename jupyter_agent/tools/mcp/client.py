"""Connect to the configured MCP servers and offer their tools; a server that fails is reported, not fatal.

Each server lives in one asyncio task of the loop that called `connect_mcp_servers` (the agent's worker
loop): the MCP SDK's transports are anyio task groups, which must be entered and left by the same task, so
the task opens the client, lists the tools, and then waits until `aclose()` tells it to leave. Tool calls
from other tasks of that loop use the open session.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

import httpx2
import mcp.types as mcp_types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from ..core import AnyTool
from .config import ConfigError, ServerConfig, StdioServer, parse_server
from .stderr_tail import StderrTail
from .tool import McpTool

_CLIENT = mcp_types.Implementation(name="jupyter-agent", version="0.1.0")
_LIST_PAGES = 50
_CLOSE_SECONDS = 10.0


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside the exception groups anyio wraps transport failures in."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        inner = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)]
        exc = (inner or list(exc.exceptions))[0]
    return exc


def _describe(exc: BaseException) -> str:
    leaf = _leaf(exc)
    return f"{type(leaf).__name__}: {leaf}".rstrip(": ")


class _Server:
    """One server's connection, owned by its own task from start to close."""

    def __init__(self, name: str, config: ServerConfig) -> None:
        self.name = name
        self.config = config
        self.client: Client | None = None
        self.listed: list[mcp_types.Tool] = []
        self.error: str | None = None
        self.lost: str = ""
        self.stderr = StderrTail() if isinstance(config, StdioServer) else None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._own(), name=f"mcp-server-{self.name}")

    @contextlib.asynccontextmanager
    async def _open(self) -> AsyncGenerator[Client]:
        config = self.config
        if isinstance(config, StdioServer):
            assert self.stderr is not None
            params = StdioServerParameters(
                command=config.command, args=config.args, env=config.env or None, cwd=config.cwd
            )
            try:
                async with Client(
                    stdio_client(params, errlog=self.stderr.writer), client_info=_CLIENT
                ) as client:
                    self.stderr.close_writer()  # the server holds its own copy now
                    yield client
            finally:
                self.stderr.close_writer()
        else:
            timeout = httpx2.Timeout(30.0, read=300.0)
            async with httpx2.AsyncClient(headers=config.headers or None, timeout=timeout) as http:
                transport = streamable_http_client(config.url, http_client=http)
                async with Client(transport, client_info=_CLIENT) as client:
                    yield client

    async def _own(self) -> None:
        try:
            async with self._open() as client:
                self.listed = await _list_tools(client)
                self.client = client
                self._ready.set()
                await self._stop.wait()
        except Exception as exc:
            if self._ready.is_set():
                self.lost = f"it stopped: {_describe(exc)}"
            else:
                self.error = self._failure(_describe(exc))
        finally:
            self.client = None
            self.lost = self.lost or "it was closed"
            self._ready.set()

    def _failure(self, reason: str) -> str:
        lines = [f"MCP server '{self.name}' did not start: {reason}", f"  {self._where()}"]
        stderr = self.stderr.text(wait=1.0) if self.stderr is not None else ""
        if stderr:
            lines.append("  stderr:")
            lines.extend(f"    {line}" for line in stderr.splitlines())
        return "\n".join(lines)

    def _where(self) -> str:
        return (
            f"command: {self.config.describe()}"
            if isinstance(self.config, StdioServer)
            else f"url: {self.config.describe()}"
        )

    async def wait_ready(self, timeout: float) -> None:
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except TimeoutError:
            await self.close()  # first, so that stderr is complete when the message quotes it
            self.error = self._failure(f"it did not finish starting within {timeout:g} s")

    async def close(self) -> None:
        """Let the owner task leave the client (or cancel it if it is still starting) and wait for it."""
        self._stop.set()
        task = self.task
        if task is None or task.done():
            return
        if not self._ready.is_set():
            task.cancel()
        _, pending = await asyncio.wait({task}, timeout=_CLOSE_SECONDS)
        if pending:
            task.cancel()
            await asyncio.wait({task}, timeout=_CLOSE_SECONDS)
        if task.done() and not task.cancelled():
            task.exception()  # already described in self.error / self.lost; mark it as seen

    def tools(self) -> list[AnyTool]:
        if self.client is None:
            return []
        return [
            McpTool(server=self.name, remote=remote, session=lambda: self.client, why_gone=lambda: self.lost)
            for remote in self.listed
        ]


async def _list_tools(client: Client) -> list[mcp_types.Tool]:
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    for _ in range(_LIST_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


@dataclass(kw_only=True)
class McpConnections:
    """The connected servers' tools, the servers that failed (name → message), and how to close them all."""

    tools: list[AnyTool] = field(default_factory=list[AnyTool])
    errors: dict[str, str] = field(default_factory=dict[str, str])
    #: Tools by server name, for one ToolPool source per server (`mcp:<server>`).
    tools_by_server: dict[str, list[AnyTool]] = field(default_factory=dict[str, list[AnyTool]])
    _servers: list[_Server] = field(default_factory=list[_Server], repr=False)

    async def aclose(self) -> None:
        """Close every session (stdio servers get their stdin closed, then SIGTERM/SIGKILL if they linger)."""
        servers, self._servers = self._servers, []
        await asyncio.gather(*(server.close() for server in servers))

    async def __aenter__(self) -> McpConnections:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()


async def connect_mcp_servers(
    servers: dict[str, dict[str, Any]], *, startup_timeout: float = 30.0
) -> McpConnections:
    """Start or reach every server at once; wait up to `startup_timeout` for each to list its tools.

    Never raises for a server's failure: it goes to `.errors[name]` with the command (or URL), the reason and
    the first lines of its stderr, and the other servers work as usual.
    """
    connections = McpConnections()
    # jsonschema (argument validation) takes seconds to import: do it while the servers start.
    warm_up = (
        asyncio.create_task(asyncio.to_thread(importlib.import_module, "jsonschema")) if servers else None
    )
    started: list[_Server] = []
    for name, raw in servers.items():
        try:
            config = parse_server(raw)
        except ConfigError as exc:
            connections.errors[name] = f"MCP server '{name}' is not configured correctly: {exc}"
            continue
        server = _Server(name, config)
        server.start()
        started.append(server)
    await asyncio.gather(*(server.wait_ready(startup_timeout) for server in started))
    if warm_up is not None:
        await warm_up
    for server in started:
        if server.error is not None:
            connections.errors[server.name] = server.error
            await server.close()
            continue
        tools = server.tools()
        connections.tools_by_server[server.name] = tools
        connections.tools.extend(tools)
        connections._servers.append(server)
    return connections
