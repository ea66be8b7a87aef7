"""`%agent serve`: this kernel's notebook, kernel and file tools for an outside agent, over MCP (`server.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .options import ServeUsageError, parse_serve
from .server import KernelServer

if TYPE_CHECKING:
    from ..host.kernel_agent import KernelAgent

__all__ = ["ServeUsageError", "serve_command", "serve_status"]

#: The running server of each kernel's agent (one at a time).
_RUNNING: dict[int, KernelServer] = {}


def serve_command(agent: KernelAgent, args: list[str]) -> str | None:
    """`%agent serve [options]` starts the server (printing how to connect); `%agent serve stop` stops it."""
    running = _RUNNING.get(id(agent))
    if args[:1] == ["stop"]:
        if len(args) > 1:
            raise ServeUsageError(f"%agent serve stop takes no more words (got {' '.join(args[1:])!r})")
        if running is None:
            return "no MCP server is running in this kernel"
        del _RUNNING[id(agent)]
        return running.stop()
    if running is not None and running.running:
        raise ServeUsageError(
            f"%agent serve: already serving at {running.url}; `%agent serve stop` first to start another"
        )
    if agent.kernel is None:
        raise ServeUsageError("%agent serve needs a Jupyter kernel (ipykernel); terminal IPython has none")
    server = KernelServer(agent=agent, options=parse_serve(args))
    server.start()
    _RUNNING[id(agent)] = server
    return None


def serve_status(agent: KernelAgent) -> str:
    """`%agent status`'s line: the URL, the clients and how many calls they made, or that none runs."""
    running = _RUNNING.get(id(agent))
    return running.status() if running is not None and running.running else "— (`%agent serve` starts one)"
