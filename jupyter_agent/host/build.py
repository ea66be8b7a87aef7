"""A kernel's session, built from the settings and the services the kernel offers — not from the host object.

What the session needs from its surroundings is `HostServices`: the IPython shell and kernel (if any), the
channel to the main thread, the user's `@tool` functions, and a way to run a coroutine on the worker (to
connect MCP servers on the loop that will use them).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Coroutine, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..tools.builtin import builtin_tools
from ..tools.context import ToolContext
from ..tools.registry import ToolPool
from ..tools.sandbox import Sandbox
from .configure import agent_config

if TYPE_CHECKING:
    from ..agent.session import AgentSession
    from ..settings import AgentSettings
    from ..tools.core import AnyTool
    from ..tools.mcp import McpConnections
    from ..ui.channel import UIChannel

#: How long building a session waits for the configured MCP servers to connect.
MCP_CONNECT_TIMEOUT = 60.0


@dataclass(frozen=True, kw_only=True)
class HostServices:
    """What the kernel offers a session; `shell` and `kernel` are None outside IPython / a kernel."""

    shell: Any
    kernel: Any
    main_thread: UIChannel
    user_tools: Mapping[str, AnyTool]
    submit: Callable[[Coroutine[Any, Any, Any]], Future[Any]]


@dataclass(frozen=True, kw_only=True)
class BuiltSession:
    session: AgentSession
    #: The MCP connections to close on unload (None when no server is configured).
    mcp: McpConnections | None


def build_session(settings: AgentSettings, host: HostServices) -> BuiltSession:
    """A new session: tools from every source, the notebook's directory as the default root, the settings' config."""
    from ..agent.session import AgentSession
    from ..notebook.provider import NotebookProvider, kernel_notebook_path
    from ..tools.permissions import PermissionPolicy

    user_ns = host.shell.user_ns if host.shell is not None else None
    nb_path = kernel_notebook_path(user_ns)
    cwd = nb_path.parent if nb_path is not None else Path.cwd()
    ctx = ToolContext(sandbox=Sandbox.at(cwd, roots=tuple(settings.roots)), namespace=user_ns)
    ctx.services.update(
        shell=host.shell,
        main_thread=host.main_thread,
        notebooks=NotebookProvider(default_path=nb_path, kernel=host.kernel),
    )
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
    )
    return BuiltSession(session=session, mcp=_connect_mcp(settings, host, session))


def kernel_description(kernel: Any) -> str:
    """The kernel line of the system prompt: `ipykernel 7.1.0 · Python 3.12.3 · pid 4242`."""
    if kernel is None:
        return "IPython (terminal)"
    return f"ipykernel {getattr(kernel, 'implementation_version', '')} · Python {sys.version.split()[0]} · pid {os.getpid()}"


def _connect_mcp(settings: AgentSettings, host: HostServices, session: AgentSession) -> McpConnections | None:
    servers: dict[str, Any] = dict(settings.mcp_servers)
    if not servers:
        return None
    from ..tools.mcp import connect_mcp_servers

    connections = host.submit(connect_mcp_servers(servers)).result(timeout=MCP_CONNECT_TIMEOUT)
    session.pool.set_source("mcp", connections.tools)
    for error in connections.errors.values():
        print(f"jupyter_agent: {error}")
    return connections
