"""The configured MCP servers of a session: started, restarted and stopped as the setting changes.

`McpServers` connects in the background: a slow or hanging server never holds up a request; its tools join
the pool when it is ready (`on_change`), with a line through `report`. It also restarts servers (one or all,
a crashed one included) and applies a changed `mcp_servers` setting (`configure`).

The connection code (`client.py`) and with it the MCP SDK (seconds to import) are loaded when the first
server starts, so a session without MCP servers never imports them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ...tools.core import AnyTool
from .config import DEFAULT_CALL_TIMEOUT, ConfigError, parse_server
from .names import unique_tool_names

if TYPE_CHECKING:
    from .client import ServerConnection, State


#: A server that is configured but not started: "waiting" for the user's approval, or "disabled" by name.
Held = Literal["waiting", "disabled"]
#: A server that went away by itself: being started again, or given up on (recovery.py).
Recovering = Literal["reconnecting", "down"]


@dataclass(frozen=True, kw_only=True)
class ServerStatus:
    """One line of `%agent mcp`: the server, its state, how many tools it offers, where it is configured, and
    why when it is not up."""

    name: str
    state: State | Held | Recovering
    #: Which try a reconnecting server is at.
    try_number: int = 0
    tools: int = 0
    detail: str = ""
    #: Where it is configured ("" : the `mcp_servers` setting).
    source: str = ""


def server_status(server: ServerConnection) -> ServerStatus:
    """Its line of `%agent mcp`."""
    state: State | Recovering = server.state
    notes: list[str] = []
    recovery = server.reconnecting
    if recovery is not None:
        state = "down" if recovery.down else "reconnecting"
        notes.append(recovery.why(server.name))
    elif state == "failed":
        notes.append(server.error or "")
    elif state == "stopped":
        notes.append(server.lost)
    if server.task_only:
        notes.append(f"not offered (they only run as MCP tasks): {', '.join(server.task_only)}")
    for name, why in server.skipped.items():
        notes.append(f"tool '{name}' skipped: {why}")
    if server.stray_lines:
        notes.append(f"{server.stray_lines} stray stdout line(s) ignored")
    return ServerStatus(
        name=server.name,
        state=state,
        try_number=recovery.try_number if recovery is not None else 0,
        tools=len(server.tools()),
        detail="; ".join(notes),
    )


def _ignore(_: str) -> None:
    return None


class McpServers:
    """The configured servers, connecting in the background; see the module docstring.

    Every method runs on the loop the servers live on. `sources()` is what the tool pool should hold:
    `mcp:<server>` → that server's tools (kept while the server is down or restarting: a call answers
    NOT_AVAILABLE naming `%agent mcp restart`), and `mcp` → the resource tools while a server that offers
    resources is configured.
    """

    def __init__(
        self,
        *,
        startup_timeout: float = 30.0,
        on_change: Callable[[], None] = lambda: None,
        report: Callable[[str], None] = _ignore,
        call_timeout: float = DEFAULT_CALL_TIMEOUT,
    ) -> None:
        self.startup_timeout = startup_timeout
        #: Seconds a tool call may go without an answer or a progress notification (the mcp_timeout setting).
        self.call_timeout = call_timeout
        self.on_change = on_change
        self.report = report
        self._configs: dict[str, dict[str, Any]] = {}
        self._servers: dict[str, ServerConnection] = {}
        #: Servers whose settings are wrong (name → message); they are not started.
        self.config_errors: dict[str, str] = {}
        self._watchers: set[asyncio.Task[None]] = set()
        #: Servers that went away by itself being brought back (recovery.py), by name.
        self._reconnects: dict[str, asyncio.Task[None]] = {}
        #: Seconds before each try to bring back a server that went away by itself (recovery.DELAYS).
        self.reconnect_delays: tuple[float, ...] | None = None
        self._warm_up: asyncio.Task[Any] | None = None
        self._collisions_reported: set[str] = set()
        #: Where `${VAR}` in a server's settings is looked up (None: the kernel's environment).
        self.environ: Mapping[str, str] | None = None
        #: Where each server is configured (name → source), and the servers configured but not started.
        self._sources: dict[str, str] = {}
        self._held: list[ServerStatus] = []

    def configure(
        self,
        servers: dict[str, dict[str, Any]],
        *,
        sources: Mapping[str, str] | None = None,
        held: Sequence[ServerStatus] = (),
    ) -> None:
        """Bring the running servers in line with the setting: start new ones, stop removed ones, restart
        changed ones. Unchanged servers keep running (and keep their sessions). `sources` names where each is
        configured; `held` are servers configured but not started (listed by `statuses`, with why)."""
        self._sources = dict(sources or {})
        self._held = [h for h in held if h.name not in servers]
        wanted = {name: dict(raw) for name, raw in servers.items()}
        for name in [n for n in self._configs if n not in wanted or wanted[n] != self._configs[n]]:
            self._configs.pop(name, None)
            self.config_errors.pop(name, None)
            self._stop_reconnecting(name)
            server = self._servers.pop(name, None)
            if server is not None:
                self._watch(server.close())
        for name, raw in wanted.items():
            if name not in self._configs:
                self._configs[name] = raw
                self._start(name)
        self.on_change()

    def _start(self, name: str, previous: ServerConnection | None = None, *, settle: bool = True) -> None:
        try:
            config = parse_server(self._configs[name], self.environ)
        except ConfigError as exc:
            self.config_errors[name] = f"MCP server '{name}' is not configured correctly: {exc}"
            self.report(self.config_errors[name])
            return
        if self._warm_up is None:
            # jsonschema (argument validation) takes seconds to import: do it while the servers start.
            self._warm_up = asyncio.create_task(asyncio.to_thread(importlib.import_module, "jsonschema"))
        from .client import ServerConnection

        server = ServerConnection(
            name,
            config,
            on_event=self._event,
            report=self.report,
            previous=previous,
            call_timeout=lambda: self.call_timeout,
        )
        self._servers[name] = server
        server.start()
        if settle:
            self._watch(self._settle(server))

    def _watch(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    async def _settle(self, server: ServerConnection) -> None:
        await server.wait_ready(self.startup_timeout)
        if server.error is not None and self._servers.get(server.name) is server:
            await server.close()
            self.report(server.error)
            self.on_change()

    def _event(self, server: ServerConnection) -> None:
        if self._servers.get(server.name) is not server:
            return
        status = server_status(server)
        if status.state == "connected" and server.changed is not None:
            added, removed = server.changed
            server.changed = None
            said = [
                f"now offers {', '.join(added)}" if added else "",
                f"no longer {', '.join(removed)}" if removed else "",
            ]
            self.report(f"MCP server '{server.name}' changed its tools: {'; '.join(s for s in said if s)}")
            self._report_collisions()
        elif status.state == "connected":
            line = (
                f"MCP server '{server.name}' connected: {status.tools} tool{'s' if status.tools != 1 else ''}"
            )
            if server.task_only:
                line += f" ({', '.join(server.task_only)} not offered: they only run as MCP tasks)"
            self.report(line)
            self._report_collisions()
        elif status.state == "stopped" and server.name in self._configs:
            self._reconnect(server)
        self.on_change()

    def _reconnect(self, lost: ServerConnection) -> None:
        from .recovery import DELAYS, reconnect

        name = lost.name

        def start(previous: ServerConnection) -> ServerConnection:
            self._start(name, previous=previous, settle=False)
            return self._servers[name]

        task = asyncio.create_task(
            reconnect(
                lost,
                start=start,
                current=lambda: self._servers.get(name),
                startup_timeout=self.startup_timeout,
                report=self.report,
                on_change=self.on_change,
                delays=self.reconnect_delays if self.reconnect_delays is not None else DELAYS,
            ),
            name=f"mcp-reconnect-{name}",
        )
        self._reconnects[name] = task
        task.add_done_callback(
            lambda done: self._reconnects.pop(name, None) if self._reconnects.get(name) is done else None
        )

    def _stop_reconnecting(self, name: str) -> None:
        task = self._reconnects.pop(name, None)
        if task is not None:
            task.cancel()

    async def restart(self, name: str | None = None) -> list[str]:
        """Stop and start one server (`name`) or all of them; the names restarted. Unknown name: KeyError."""
        if name is not None and name not in self._configs:
            known = ", ".join(sorted(self._configs)) or "none configured"
            raise KeyError(f"no MCP server named '{name}' (servers: {known})")
        names = [name] if name is not None else list(self._configs)
        for each in names:
            self._stop_reconnecting(each)
            server = self._servers.pop(each, None)
            self.config_errors.pop(each, None)
            if server is not None:
                await server.close()
            self._start(each, previous=server)
        self.on_change()
        return names

    async def settled(self) -> None:
        """Wait until no server is still connecting (each has a startup timeout, so this ends)."""
        while self._watchers:
            await asyncio.wait(set(self._watchers))
        if self._warm_up is not None:
            await self._warm_up

    def statuses(self) -> list[ServerStatus]:
        rows = [server_status(server) for server in self._servers.values()]
        rows += [ServerStatus(name=n, state="failed", detail=e) for n, e in self.config_errors.items()]
        rows = [dataclasses.replace(row, source=self._sources.get(row.name, "")) for row in rows]
        return sorted([*rows, *self._held], key=lambda row: row.name)

    def connected(self) -> list[ServerConnection]:
        return [server for server in self._servers.values() if server.client is not None]

    def tool_names(self) -> tuple[dict[tuple[str, str], str], list[str]]:
        """The pool name of every listed tool (of a server up or down), and a notice per name collision
        (they are made unique with a suffix, so each tool stays reachable; see `unique_tool_names`)."""
        return unique_tool_names(
            [(server.name, remote.name) for server in self._servers.values() for remote in server.listed]
        )

    def _report_collisions(self) -> None:
        for notice in self.tool_names()[1]:
            if notice not in self._collisions_reported:
                self._collisions_reported.add(notice)
                self.report(notice)

    def sources(self) -> dict[str, list[AnyTool]]:
        names, _ = self.tool_names()
        result: dict[str, list[AnyTool]] = {f"mcp:{name}": [] for name in self._configs}
        for server in self._servers.values():
            result[f"mcp:{server.name}"] = server.tools(names)
        result["mcp"] = []
        if any(s.has_resources for s in self._servers.values()):
            from .resources import resource_tools

            result["mcp"] = resource_tools(lambda: list(self._servers.values()))
        return result

    def server(self, name: str) -> ServerConnection | None:
        return self._servers.get(name)

    async def aclose(self) -> None:
        """Close every session (stdio servers get their stdin closed, then SIGTERM/SIGKILL if they linger)."""
        for name in list(self._reconnects):
            self._stop_reconnecting(name)
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
