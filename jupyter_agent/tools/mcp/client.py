"""Connect to the configured MCP servers and offer their tools; a server that fails is reported, not fatal.

Each server lives in one asyncio task of the loop that started it (the agent's worker loop): the MCP SDK's
transports are anyio task groups, which must be entered and left by the same task, so the task opens the
client, lists the tools, and then waits until it is told to leave. Tool calls from other tasks of that loop
use the open session.

`McpServers` connects in the background: a slow or hanging server never holds up a request; its tools join
the pool when it is ready (`on_change`), with a line through `report`. It also restarts servers (one or all,
a crashed one included) and applies a changed `mcp_servers` setting (`configure`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx2
import mcp.types as mcp_types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from ..core import AnyTool
from .config import ConfigError, ServerConfig, StdioServer, parse_server
from .stderr_tail import StderrTail
from .tool import McpTool, unique_tool_names

_CLIENT = mcp_types.Implementation(name="jupyter-agent", version="0.1.0")
_LIST_PAGES = 50
_CLOSE_SECONDS = 10.0
_STRAY_LINE = "Failed to parse JSONRPC message from server"


class _QuietStrayLines(logging.Filter):
    """The SDK logs a traceback for every stdout line that is not JSON-RPC; `_Server` reports it once instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != _STRAY_LINE


logging.getLogger("mcp.client.stdio").addFilter(_QuietStrayLines())


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside the exception groups anyio wraps transport failures in."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        inner = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)]
        exc = (inner or list(exc.exceptions))[0]
    return exc


def _describe(exc: BaseException) -> str:
    leaf = _leaf(exc)
    return f"{type(leaf).__name__}: {leaf}".rstrip(": ")


def _stray_text(exc: Exception) -> str:
    """The offending line, from the parse error the SDK hands to the message handler."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError):
        for error in exc.errors():
            value: Any = error.get("input")
            if isinstance(value, str | bytes):
                text = value.decode(errors="replace") if isinstance(value, bytes) else value
                return text.strip()[:200]
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__


State = Literal["connecting", "connected", "failed", "stopped"]


@dataclass(frozen=True, kw_only=True)
class ServerStatus:
    """One line of `%agent mcp`: the server, its state, how many tools it offers, and why when it is not up."""

    name: str
    state: State
    tools: int = 0
    detail: str = ""


class _Server:
    """One server's connection, owned by its own task from start to close."""

    def __init__(
        self,
        name: str,
        config: ServerConfig,
        *,
        on_event: Callable[[_Server], None],
        report: Callable[[str], None],
    ) -> None:
        self.name = name
        self.config = config
        self.client: Client | None = None
        self.listed: list[mcp_types.Tool] = []
        #: Tools that only run as MCP tasks ("taskSupport": "required"), which this client does not drive.
        self.task_only: list[str] = []
        self.has_resources = False
        self.error: str | None = None
        self.lost: str = ""
        self.stray_lines = 0
        self.stderr = StderrTail() if isinstance(config, StdioServer) else None
        self._on_event = on_event
        self._report = report
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._own(), name=f"mcp-server-{self.name}")

    @property
    def state(self) -> State:
        if self.error is not None:
            return "failed"
        if not self._ready.is_set():
            return "connecting"
        return "connected" if self.client is not None else "stopped"

    async def _on_message(self, message: Any) -> None:
        """Transport errors reach here; a stray stdout line is counted and reported once, not raised."""
        if isinstance(message, Exception):
            self.stray_lines += 1
            if self.stray_lines == 1:
                self._report(
                    f"MCP server '{self.name}' wrote a line to stdout that is not MCP; ignored (servers must log "
                    f"to stderr; `%agent mcp` counts further ones): {_stray_text(message)}"
                )

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
                    stdio_client(params, errlog=self.stderr.writer),
                    client_info=_CLIENT,
                    message_handler=self._on_message,
                ) as client:
                    self.stderr.close_writer()  # the server holds its own copy now
                    yield client
            finally:
                self.stderr.close_writer()
        else:
            timeout = httpx2.Timeout(30.0, read=300.0)
            async with httpx2.AsyncClient(headers=config.headers or None, timeout=timeout) as http:
                transport = streamable_http_client(config.url, http_client=http)
                async with Client(transport, client_info=_CLIENT, message_handler=self._on_message) as client:
                    yield client

    async def _own(self) -> None:
        try:
            async with self._open() as client:
                listed = await _list_tools(client)
                self.task_only = [t.name for t in listed if _task_support(t) == "required"]
                self.listed = [t for t in listed if _task_support(t) != "required"]
                self.has_resources = client.server_capabilities.resources is not None
                self.client = client
                self._ready.set()
                self._on_event(self)
                await self._stop.wait()
        except Exception as exc:
            if self._ready.is_set():
                self.lost = self.lost or _describe(exc)
            else:
                self.error = self._failure(_describe(exc))
        finally:
            was_up = self.client is not None
            unexpected = bool(self.lost) or not self._stop.is_set()
            self.client = None
            self.lost = self.lost or "it was closed"
            self._ready.set()
            if was_up and unexpected:
                self._on_event(self)

    def mark_lost(self, reason: str) -> None:
        """A call found the connection gone (the process died): leave the session, report it once."""
        if self.client is not None and not self.lost:
            self.lost = reason
            self._stop.set()

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

    def tools(self, names: Mapping[tuple[str, str], str] | None = None) -> list[AnyTool]:
        """One McpTool per listed tool, named from `names` (see `unique_tool_names`) when given."""
        if self.client is None:
            return []
        given = names or {}
        return [
            McpTool(
                server=self.name,
                remote=remote,
                session=lambda: self.client,
                why_gone=lambda: self.lost,
                on_lost=self.mark_lost,
                name=given.get((self.name, remote.name)),
            )
            for remote in self.listed
        ]

    def status(self) -> ServerStatus:
        state = self.state
        notes: list[str] = []
        if state == "failed":
            notes.append(self.error or "")
        elif state == "stopped":
            notes.append(self.lost)
        if self.task_only:
            notes.append(f"not offered (they only run as MCP tasks): {', '.join(self.task_only)}")
        if self.stray_lines:
            notes.append(f"{self.stray_lines} stray stdout line(s) ignored")
        return ServerStatus(name=self.name, state=state, tools=len(self.tools()), detail="; ".join(notes))


def _task_support(tool: mcp_types.Tool) -> str | None:
    return tool.execution.task_support if tool.execution is not None else None


async def pages(
    fetch: Callable[[str | None], Awaitable[Any]], field: str, limit: int = _LIST_PAGES
) -> list[Any]:
    """Every item of a paginated MCP list (`tools`, `resources`, …), following `next_cursor` up to `limit` pages."""
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(limit):
        page = await fetch(cursor)
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if cursor is None:
            break
    return items


async def _list_tools(client: Client) -> list[mcp_types.Tool]:
    return await pages(lambda cursor: client.list_tools(cursor=cursor), "tools")


def _ignore(_: str) -> None:
    return None


class McpServers:
    """The configured servers, connecting in the background; see the module docstring.

    Every method runs on the loop the servers live on. `sources()` is what the tool pool should hold:
    `mcp:<server>` → that server's tools (empty while it is not connected), and `mcp` → the resource tools
    while a connected server offers resources.
    """

    def __init__(
        self,
        *,
        startup_timeout: float = 30.0,
        on_change: Callable[[], None] = lambda: None,
        report: Callable[[str], None] = _ignore,
    ) -> None:
        self.startup_timeout = startup_timeout
        self.on_change = on_change
        self.report = report
        self._configs: dict[str, dict[str, Any]] = {}
        self._servers: dict[str, _Server] = {}
        #: Servers whose settings are wrong (name → message); they are not started.
        self.config_errors: dict[str, str] = {}
        self._watchers: set[asyncio.Task[None]] = set()
        self._warm_up: asyncio.Task[Any] | None = None
        self._collisions_reported: set[str] = set()

    def configure(self, servers: dict[str, dict[str, Any]]) -> None:
        """Bring the running servers in line with the setting: start new ones, stop removed ones, restart
        changed ones. Unchanged servers keep running (and keep their sessions)."""
        wanted = {name: dict(raw) for name, raw in servers.items()}
        for name in [n for n in self._configs if n not in wanted or wanted[n] != self._configs[n]]:
            self._configs.pop(name, None)
            self.config_errors.pop(name, None)
            server = self._servers.pop(name, None)
            if server is not None:
                self._watch(server.close())
        for name, raw in wanted.items():
            if name not in self._configs:
                self._configs[name] = raw
                self._start(name)
        self.on_change()

    def _start(self, name: str) -> None:
        try:
            config = parse_server(self._configs[name])
        except ConfigError as exc:
            self.config_errors[name] = f"MCP server '{name}' is not configured correctly: {exc}"
            self.report(self.config_errors[name])
            return
        if self._warm_up is None:
            # jsonschema (argument validation) takes seconds to import: do it while the servers start.
            self._warm_up = asyncio.create_task(asyncio.to_thread(importlib.import_module, "jsonschema"))
        server = _Server(name, config, on_event=self._event, report=self.report)
        self._servers[name] = server
        server.start()
        self._watch(self._settle(server))

    def _watch(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    async def _settle(self, server: _Server) -> None:
        await server.wait_ready(self.startup_timeout)
        if server.error is not None and self._servers.get(server.name) is server:
            await server.close()
            self.report(server.error)
            self.on_change()

    def _event(self, server: _Server) -> None:
        if self._servers.get(server.name) is not server:
            return
        status = server.status()
        if status.state == "connected":
            line = (
                f"MCP server '{server.name}' connected: {status.tools} tool{'s' if status.tools != 1 else ''}"
            )
            if server.task_only:
                line += f" ({', '.join(server.task_only)} not offered: they only run as MCP tasks)"
            self.report(line)
            self._report_collisions()
        elif status.state == "stopped":
            self.report(
                f"MCP server '{server.name}' stopped ({server.lost}); `%agent mcp restart {server.name}` starts "
                "it again"
            )
        self.on_change()

    async def restart(self, name: str | None = None) -> list[str]:
        """Stop and start one server (`name`) or all of them; the names restarted. Unknown name: KeyError."""
        if name is not None and name not in self._configs:
            known = ", ".join(sorted(self._configs)) or "none configured"
            raise KeyError(f"no MCP server named '{name}' (servers: {known})")
        names = [name] if name is not None else list(self._configs)
        for each in names:
            server = self._servers.pop(each, None)
            self.config_errors.pop(each, None)
            if server is not None:
                await server.close()
            self._start(each)
        self.on_change()
        return names

    async def settled(self) -> None:
        """Wait until no server is still connecting (each has a startup timeout, so this ends)."""
        while self._watchers:
            await asyncio.wait(set(self._watchers))
        if self._warm_up is not None:
            await self._warm_up

    def statuses(self) -> list[ServerStatus]:
        rows = [server.status() for server in self._servers.values()]
        rows += [ServerStatus(name=n, state="failed", detail=e) for n, e in self.config_errors.items()]
        return sorted(rows, key=lambda row: row.name)

    def connected(self) -> list[_Server]:
        return [server for server in self._servers.values() if server.client is not None]

    def tool_names(self) -> tuple[dict[tuple[str, str], str], list[str]]:
        """The pool name of every connected server's tools, and a notice per name collision (they are made
        unique with a suffix, so each tool stays reachable; see `unique_tool_names`)."""
        return unique_tool_names(
            [(server.name, remote.name) for server in self.connected() for remote in server.listed]
        )

    def _report_collisions(self) -> None:
        for notice in self.tool_names()[1]:
            if notice not in self._collisions_reported:
                self._collisions_reported.add(notice)
                self.report(notice)

    def sources(self) -> dict[str, list[AnyTool]]:
        from .resources import resource_tools

        names, _ = self.tool_names()
        result: dict[str, list[AnyTool]] = {f"mcp:{name}": [] for name in self._configs}
        for server in self.connected():
            result[f"mcp:{server.name}"] = server.tools(names)
        result["mcp"] = resource_tools(self) if any(s.has_resources for s in self.connected()) else []
        return result

    def server(self, name: str) -> _Server | None:
        return self._servers.get(name)

    async def aclose(self) -> None:
        """Close every session (stdio servers get their stdin closed, then SIGTERM/SIGKILL if they linger)."""
        servers, self._servers = list(self._servers.values()), {}
        self._configs = {}
        await asyncio.gather(*(server.close() for server in servers))
        while self._watchers:
            await asyncio.wait(set(self._watchers))


@dataclass(kw_only=True)
class McpConnections:
    """The connected servers' tools, the servers that failed (name → message), and how to close them all."""

    tools: list[AnyTool] = field(default_factory=list[AnyTool])
    errors: dict[str, str] = field(default_factory=dict[str, str])
    #: Tool names that collided and were made unique (see `unique_tool_names`).
    notices: list[str] = field(default_factory=list[str])
    #: Tools by server name, for one ToolPool source per server (`mcp:<server>`).
    tools_by_server: dict[str, list[AnyTool]] = field(default_factory=dict[str, list[AnyTool]])
    servers: McpServers = field(default_factory=McpServers, repr=False)

    async def aclose(self) -> None:
        await self.servers.aclose()

    async def __aenter__(self) -> McpConnections:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()


async def connect_mcp_servers(
    servers: dict[str, dict[str, Any]], *, startup_timeout: float = 30.0
) -> McpConnections:
    """Start every server and wait until each has listed its tools or failed (for scripts and tests; a session
    uses `McpServers` and does not wait).

    Never raises for a server's failure: it goes to `.errors[name]` with the command (or URL), the reason and
    the first lines of its stderr, and the other servers work as usual.
    """
    manager = McpServers(startup_timeout=startup_timeout)
    manager.configure(servers)
    await manager.settled()
    connections = McpConnections(servers=manager)
    for status in manager.statuses():
        if status.state == "failed":
            connections.errors[status.name] = status.detail
    names, connections.notices = manager.tool_names()
    for server in manager.connected():
        tools = server.tools(names)
        connections.tools_by_server[server.name] = tools
        connections.tools.extend(tools)
    return connections
