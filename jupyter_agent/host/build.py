"""A kernel's session, built from the settings and the services the kernel offers — not from the host object.

What the session needs from its surroundings is `HostServices`: the IPython shell and kernel (if any), the
channel to the main thread, the user's `@tool` functions, and a way to run a coroutine on the worker (to
connect MCP servers on the loop that will use them).

MCP servers connect in the background (`McpServers`): building a session never waits for them; each
server's tools join the pool when it is ready, and its lines reach the user through `McpLines`.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Coroutine, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base.sandbox import Sandbox
from ..builtin_tools.catalog import builtin_tools
from ..tools.context import ToolContext, ToolServices
from ..tools.registry import ToolPool
from .configure import agent_config

if TYPE_CHECKING:
    from ..agent.session import AgentSession
    from ..builtin_tools.mcp.servers import McpServers
    from ..notebook.bridge import LiveBridge
    from ..project import ProjectSettings
    from ..settings import AgentSettings
    from ..tools.core import AnyTool
    from ..ui.channel import UIChannel

#: How long starting the MCP servers' tasks on the worker may take (they connect afterwards, in the background).
MCP_START_TIMEOUT = 30.0


@dataclass(frozen=True, kw_only=True)
class HostServices:
    """What the kernel offers a session; `shell` and `kernel` are None outside IPython / a kernel."""

    shell: Any
    kernel: Any
    main_thread: UIChannel
    user_tools: Mapping[str, AnyTool]
    submit: Callable[[Coroutine[Any, Any, Any]], Future[Any]]
    #: The comm to the page, opened at `%load_ext` (None: the provider makes its own, or none outside a kernel).
    bridge: LiveBridge | None = None


@dataclass(frozen=True, kw_only=True)
class BuiltSession:
    session: AgentSession
    #: The MCP servers (to reconfigure, restart and close on unload).
    mcp: McpServers
    #: Their lines not yet shown (they arrived between runs).
    mcp_lines: McpLines


def build_session(settings: AgentSettings, host: HostServices) -> BuiltSession:
    """A new session: tools from every source, the kernel's working directory as the default root, the settings'
    config."""
    from ..agent.session import AgentSession
    from ..notebook.frontend import KernelSignals
    from ..notebook.provider import NotebookProvider, kernel_notebook_path
    from ..permissions.policy import PermissionPolicy

    user_ns = host.shell.user_ns if host.shell is not None else None
    nb_path = kernel_notebook_path(user_ns)
    cwd = Path.cwd()
    signals = KernelSignals.read(user_ns=user_ns, in_kernel=host.kernel is not None)
    services = ToolServices(
        shell=host.shell,
        main_thread=host.main_thread,
        questions=host.main_thread,
        notebooks=NotebookProvider(
            default_path=nb_path, kernel=host.kernel, signals=signals, bridge=host.bridge
        ),
    )
    ctx = ToolContext(sandbox=notebook_sandbox(host.shell, settings), namespace=user_ns, services=services)
    pool = ToolPool()
    pool.set_source("builtin", builtin_tools())
    pool.set_source("user", list(host.user_tools.values()))
    session = AgentSession(
        pool=pool,
        ctx=ctx,
        config=agent_config(settings),
        policy=PermissionPolicy(),
        notebook_path=str(nb_path) if nb_path is not None else None,
        kernel=kernel_description(host.kernel),
        project=(nb_path or cwd) if settings.save_sessions else None,
    )
    lines = McpLines(session, host.main_thread)
    return BuiltSession(session=session, mcp=_start_mcp(settings, host, session, lines), mcp_lines=lines)


def notebook_sandbox(shell: Any, settings: AgentSettings) -> Sandbox:
    """The kernel's own working directory, wherever its notebook lives (through a gateway the notebook's
    directory is on another machine and may not exist here), and the roots from the settings."""
    return Sandbox.at(Path.cwd(), roots=tuple(settings.roots))


def kernel_description(kernel: Any) -> str:
    """The kernel line of the system prompt: `ipykernel 7.1.0 · Python 3.12.3 · pid 4242`.

    ipykernel's own version, from its distribution: the kernel's `implementation_version` is IPython's.
    """
    if kernel is None:
        return "IPython (terminal)"
    from importlib.metadata import PackageNotFoundError, version

    try:
        ipykernel = version("ipykernel")
    except PackageNotFoundError:
        ipykernel = "(version unknown)"
    return f"ipykernel {ipykernel} · Python {sys.version.split()[0]} · pid {os.getpid()}"


class McpLines:
    """Where MCP servers' lines go: into the running `%%agent` cell's output as a notice, else kept for the next
    cell (`take()`); reports arrive on the worker thread, whenever a server changes state."""

    def __init__(self, session: AgentSession, main_thread: UIChannel) -> None:
        self._session = session
        self._main_thread = main_thread
        self._pending: list[str] = []
        self._lock = threading.Lock()

    def report(self, line: str) -> None:
        from ..agent.events import Notice

        if self._session.running:
            self._main_thread.emit(Notice(level="info", message=line))
        else:
            with self._lock:
                self._pending.append(line)

    def take(self) -> list[str]:
        with self._lock:
            lines, self._pending = self._pending, []
        return lines


def _start_mcp(
    settings: AgentSettings, host: HostServices, session: AgentSession, lines: McpLines
) -> McpServers:
    from ..builtin_tools.mcp.servers import McpServers

    def sync_pool() -> None:
        for source, tools in servers.sources().items():
            session.pool.set_source(source, tools)

    servers = McpServers(on_change=sync_pool, report=lines.report)
    host.submit(apply_mcp_settings(servers, settings)).result(timeout=MCP_START_TIMEOUT)
    return servers


async def apply_mcp_settings(
    servers: McpServers, settings: AgentSettings, project: ProjectSettings | None = None
) -> None:
    """Start, stop or restart servers so they match `mcp_servers` and the project's Claude Code files now (on the
    worker loop; returns at once). The setting wins over a file's server of the same name; `${VAR}` is looked up
    in the kernel's environment with the project's `env` over it."""
    from ..builtin_tools.mcp.servers import ServerStatus

    offer = project.mcp if project is not None else None
    wanted = {**(offer.started() if offer is not None else {}), **dict(settings.mcp_servers)}
    sources = {
        s.name: s.source
        for s in (offer.servers if offer is not None else ())
        if s.name not in settings.mcp_servers
    }
    held = [
        ServerStatus(name=s.name, state=s.state, detail=s.why, source=s.source)
        for s in (offer.held() if offer is not None else [])
        if s.state != "offered"
    ]
    servers.call_timeout = settings.mcp_timeout
    env = project.env if project is not None else {}
    servers.environ = {**os.environ, **env} if env else None
    servers.configure(wanted, sources=sources, held=held)


def page_bridge(shell: Any, kernel: Any) -> LiveBridge | None:
    """The comm to the page showing this kernel's notebook (None outside a kernel: no page to talk to)."""
    if kernel is None:
        return None
    from ..notebook.bridge import LiveBridge
    from ..notebook.frontend import real_path
    from ..notebook.provider import kernel_notebook_path

    path = kernel_notebook_path(getattr(shell, "user_ns", None))
    return LiveBridge(notebook_path=str(real_path(path)) if path is not None else "")


def register_session_key(kernel: Any) -> None:
    """The kernel's HMAC key signs every message to it: with it, anyone who reaches the kernel's ports runs code
    outside any sandbox. It is masked like an API key wherever it would show."""
    from ..masking import register

    key: Any = getattr(getattr(kernel, "session", None), "key", None)
    if isinstance(key, bytes) and key:
        register("kernel session key", key.decode("utf-8", "replace"))
