"""`%agent serve`: an MCP server in the kernel, for an outside agent (Claude Code, Cursor, any MCP client).

Streamable HTTP on 127.0.0.1 only, at `/mcp`, behind the loopback guard (`guard.py`: 403 for a foreign Origin,
401 without the bearer token), on a thread of its own (`http_thread.py`). Its tools are the package's own
(`listing.py`); each call takes its turn on the kernel's main thread (`turns.py`) and runs through the
package's Dispatcher there (`call.py`), shown on the serve cell's board (`board.py`).
"""

from __future__ import annotations

import atexit
import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import mcp_types as types

from ..masking import register
from ..tools.ledger import ReadLedger
from .board import ServeBoard
from .call import CallRunner, OutsideCall
from .guard import LoopbackGuard
from .http_thread import HOST, HttpThread
from .listing import SERVED_TOOLS, error_result, mcp_result, mcp_tool, served
from .options import ServeOptions
from .turns import KernelTurns, TurnInterrupted

if TYPE_CHECKING:
    from ..host.kernel_agent import KernelAgent

#: The name the token is masked under wherever it would show (results, displays, saved sessions).
TOKEN_SECRET = "JUPYTER_AGENT_SERVE_TOKEN"
NAME = "jupyter-agent"


@dataclass(kw_only=True)
class KernelServer:
    """One running `%agent serve`: its HTTP thread, its board and who called."""

    agent: KernelAgent
    options: ServeOptions
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32), repr=False)
    clients: dict[str, int] = field(default_factory=dict[str, int])
    _ledgers: dict[str, ReadLedger] = field(default_factory=dict[str, ReadLedger])
    _http: HttpThread | None = None
    _runner: CallRunner | None = None
    _turns: KernelTurns | None = None

    @property
    def url(self) -> str:
        port = self._http.port if self._http is not None else self.options.port
        return f"http://{HOST}:{port}/mcp"

    @property
    def running(self) -> bool:
        return self._http is not None and self._http.running

    def start(self) -> None:
        """Listen, print how a client connects, show the board."""
        from ..ui.presenter import no_one_can_answer

        agent = self.agent
        _ = agent.current_session()  # built (and checked) here, on the main thread
        signals = agent.kernel_signals()
        parent: dict[str, Any] = dict(agent.kernel.get_parent("shell") or {})
        self._turns = KernelTurns(agent.kernel)
        self._http = HttpThread(LoopbackGuard(self._app(), token=self.token), port=self.options.port)
        board = ServeBoard(header=f"MCP server {self.url} · mode {self.options.mode}")
        self._runner = CallRunner(
            agent=agent,
            options=self.options,
            board=board,
            serve_parent=parent,
            no_answer=no_one_can_answer(agent.kernel, signals),
        )
        self._http.start()
        atexit.register(self.stop)
        # Printed before the token becomes a secret (masked everywhere after): this is where the user learns it.
        print(self._connect_lines())
        register(TOKEN_SECRET, self.token)
        board.show()

    def _connect_lines(self) -> str:
        token_file = self.options.token_file
        if token_file is not None:
            _write_token(token_file, self.token)
            bearer = f"$(cat {token_file})"
            token_line = f"TOKEN written to {token_file} (mode 0600)"
        else:
            bearer, token_line = self.token, f"TOKEN {self.token}"
        entry = {"type": "http", "url": self.url, "headers": {"Authorization": f"Bearer {bearer}"}}
        return "\n".join(
            [
                f"URL {self.url}",
                token_line,
                "Claude Code:",
                f'claude mcp add --transport http {NAME} {self.url} --header "Authorization: Bearer {bearer}"',
                ".mcp.json / Cursor (~/.cursor/mcp.json):",
                json.dumps({"mcpServers": {NAME: entry}}, indent=2),
            ]
        )

    def _app(self) -> Any:
        from mcp.server.lowlevel.server import Server

        timeout = self.options.approval_timeout
        server: Any = Server(
            NAME,
            instructions=(
                "Tools of the Jupyter kernel the user has open, run in that kernel between the user's cells. "
                f"A call that needs the user's approval waits up to {timeout:g} s for their answer in the notebook."
            ),
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )
        return server.streamable_http_app(streamable_http_path="/mcp", host=HOST)

    def _tools(self) -> dict[str, Any]:
        session = self.agent.session
        return served(session.pool.active())

    async def _list_tools(self, _ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[mcp_tool(tool) for tool in self._tools().values()])

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name, arguments = params.name, dict(params.arguments or {})
        if name not in self._tools():
            offered = ", ".join(self._tools()) or ", ".join(SERVED_TOOLS)
            return error_result(f"UNKNOWN_TOOL: {name!r} is not served here; the tools are: {offered}")
        client = _client_name(ctx)
        self.clients[client] = self.clients.get(client, 0) + 1
        reads = self._ledgers.setdefault(_connection_key(ctx, client), ReadLedger())
        call = OutsideCall(name=name, arguments=arguments, client=client, reads=reads)
        runner, turns = self._runner, self._turns
        assert runner is not None and turns is not None
        try:
            result = await turns.take(lambda: runner.run(call))
        except TurnInterrupted as exc:
            return error_result(f"INTERRUPTED: {exc}")
        return mcp_result(result)

    def stop(self) -> str:
        atexit.unregister(self.stop)
        if self._http is not None:
            self._http.stop()
        if self._runner is not None:
            self._runner.board.stopped(f"MCP server {self.url} stopped")
        return f"stopped the MCP server at {self.url} ({self.calls} call(s) served)"

    @property
    def calls(self) -> int:
        return self._runner.served if self._runner is not None else 0

    def status(self) -> str:
        clients = ", ".join(f"{name} ({count})" for name, count in self.clients.items()) or "none yet"
        return f"{self.url} · mode {self.options.mode} · clients: {clients} · {self.calls} call(s) served"


def _client_name(ctx: Any) -> str:
    """The client's `clientInfo.name` from its initialize request ("an MCP client" when it sent none)."""
    params = getattr(getattr(ctx, "session", None), "client_params", None)
    info = getattr(params, "client_info", None)
    name = getattr(info, "name", None)
    return name if isinstance(name, str) and name.strip() else "an MCP client"


def _connection_key(ctx: Any, client: str) -> str:
    """One read ledger per client connection: its MCP session id (each HTTP request has a context of its own)."""
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None)
    session_id = headers.get("mcp-session-id") if headers is not None else None
    return f"session {session_id}" if session_id else f"client {client}"


def _write_token(path: Path, token: str) -> None:
    """The token alone in a new 0600 file (a symlink there is not followed)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, f"{token}\n".encode())
    finally:
        os.close(fd)
