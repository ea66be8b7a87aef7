"""Connect to the configured MCP servers and offer their tools; a server that fails is reported, not fatal.

Each server lives in one asyncio task of the loop that started it (the agent's worker loop): the MCP SDK's
transports are anyio task groups, which must be entered and left by the same task, so the task opens the
client, lists the tools, and then waits until it is told to leave. Tool calls from other tasks of that loop
use the open session.

The server manager (`servers.py`) imports this module, and with it the MCP SDK, only when a server is
configured: a session without MCP servers never loads the SDK.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import Any, Literal, cast

import httpx2
import mcp.types as mcp_types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from ...masking import clip
from ...tools.core import AnyTool
from .config import DEFAULT_CALL_TIMEOUT, ServerConfig, StdioServer
from .following import Relisting, follow
from .listing import list_tools
from .recovery import Recovery
from .stderr_tail import StderrTail
from .tool import McpTool

_CLIENT = mcp_types.Implementation(name="jupyter-agent", version="0.1.0")
_CLOSE_SECONDS = 10.0
_STRAY_LINE = "Failed to parse JSONRPC message from server"


class _QuietStrayLines(logging.Filter):
    """The SDK logs a traceback for every stdout line that is not JSON-RPC; `ServerConnection` reports it once instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != _STRAY_LINE


logging.getLogger("mcp.client.stdio").addFilter(_QuietStrayLines())


def _members(exc: BaseException) -> tuple[BaseException, ...]:
    """The exceptions inside an exception group; none for any other exception."""
    if isinstance(exc, BaseExceptionGroup):
        return cast("BaseExceptionGroup[BaseException]", exc).exceptions
    return ()


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside the exception groups anyio wraps transport failures in."""
    while members := _members(exc):
        inner = [e for e in members if not isinstance(e, asyncio.CancelledError)]
        exc = (inner or list(members))[0]
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
                return clip(text.strip(), 200, marker="")
    return clip(str(exc).splitlines()[0], 200, marker="") if str(exc) else type(exc).__name__


State = Literal["connecting", "connected", "failed", "stopped"]


class ServerConnection:
    """One server's connection, owned by its own task from start to close."""

    def __init__(
        self,
        name: str,
        config: ServerConfig,
        *,
        on_event: Callable[[ServerConnection], None],
        report: Callable[[str], None],
        previous: ServerConnection | None = None,
        call_timeout: Callable[[], float] = lambda: DEFAULT_CALL_TIMEOUT,
    ) -> None:
        self.name = name
        self.config = config
        self.client: Client | None = None
        #: The tools of the last listing (a restarted server keeps its predecessor's until it lists its own,
        #: so a call meanwhile is NOT_AVAILABLE "starting again", not an unknown tool).
        self.listed: list[mcp_types.Tool] = list(previous.listed) if previous is not None else []
        #: Tools the server listed that cannot be offered, by name, with the reason (`%agent mcp` shows them).
        self.skipped: dict[str, str] = {}
        self.call_timeout = call_timeout
        #: Tools that only run as MCP tasks ("taskSupport": "required"), which this client does not drive.
        self.task_only: list[str] = []
        self.has_resources = previous.has_resources if previous is not None else False
        self.error: str | None = None
        self.lost: str = ""
        self.stray_lines = 0
        self.stderr = StderrTail() if isinstance(config, StdioServer) else None
        #: The tools the last re-listing added and removed (by the server's names), for its report line.
        self.changed: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        #: Set while the manager brings a server that went away back (recovery.py), or after it gave up.
        self.reconnecting: Recovery | None = None
        self.relisting = Relisting(self.relist)
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
        """Transport errors reach here; a stray stdout line is counted and reported once, not raised. A 2025
        protocol's `tools/list_changed` notification starts a re-listing (see `following.py`)."""
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self.relisting.request()
        elif isinstance(message, Exception):
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
                self._take(*await list_tools(client))
                self.has_resources = client.server_capabilities.resources is not None
                self.client = client
                self._ready.set()
                self._on_event(self)
                await self._until_stopped_or_closed(client)
        except Exception as exc:
            if self._ready.is_set():
                self.lost = self.lost or _describe(exc)
            else:
                self.error = self._failure(_describe(exc))
        finally:
            self.relisting.cancel()
            was_up = self.client is not None
            unexpected = bool(self.lost) or not self._stop.is_set()
            self.client = None
            self.lost = self.lost or "it was closed"
            self._ready.set()
            if was_up and unexpected:
                self._on_event(self)

    def _take(self, listed: list[mcp_types.Tool], skipped: dict[str, str]) -> None:
        self.skipped = skipped
        self.task_only = [t.name for t in listed if _task_support(t) == "required"]
        self.listed = [t for t in listed if _task_support(t) != "required"]

    async def _until_stopped_or_closed(self, client: Client) -> None:
        """Follow the server's tool changes until we are told to leave or its connection closes by itself."""
        following = asyncio.create_task(
            follow(client, self.relisting.request), name=f"mcp-follow-{self.name}"
        )
        stopping = asyncio.create_task(self._stop.wait())
        try:
            await asyncio.wait({following, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (following, stopping):
                task.cancel()
            await asyncio.wait({following, stopping})
        if not self._stop.is_set():
            self.lost = self.lost or "it closed the connection (its process exited?)"

    async def relist(self) -> None:
        """List the tools again (the server said they changed) and tell the manager, which updates the pool."""
        client = self.client
        if client is None:
            return
        before = {tool.name: tool for tool in self.listed}
        self._take(*await list_tools(client))
        after = {tool.name: tool for tool in self.listed}
        added = tuple(n for n, t in after.items() if n not in before or before[n] != t)
        removed = tuple(n for n in before if n not in after)
        if added or removed:
            self.changed = (added, removed)
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

    def why_not_connected(self) -> str:
        """Why a call cannot reach the server now (for NOT_AVAILABLE)."""
        if self.reconnecting is not None:
            return f"it is {self.reconnecting.state()}"
        if self.error is not None:
            return "it did not start; `%agent mcp` shows why"
        if not self._ready.is_set():
            return "it is starting (again)"
        return f"it stopped: {self.lost}"

    def tools(self, names: Mapping[tuple[str, str], str] | None = None) -> list[AnyTool]:
        """One McpTool per listed tool, named from `names` (see `unique_tool_names`) when given. The tools of a
        server that went away stay offered: a call answers NOT_AVAILABLE with the restart command, where
        a vanished tool would be "no tool named …" in the middle of a run."""
        given = names or {}
        return [
            McpTool(
                server=self.name,
                remote=remote,
                session=lambda: self.client,
                why_gone=self.why_not_connected,
                on_lost=self.mark_lost,
                settle=self.relisting.caught_up,
                timeout=self.call_timeout,
                name=given.get((self.name, remote.name)),
            )
            for remote in self.listed
        ]


def _task_support(tool: mcp_types.Tool) -> str | None:
    return tool.execution.task_support if tool.execution is not None else None
