"""A server whose process is killed comes back by itself (backoff, a limited number of tries); meanwhile a call is
refused at once with why, `%agent mcp` says `reconnecting (try N)`; after the last try it is `down` and
`%agent mcp restart NAME` brings it back. Real stdio servers, killed by their process id. No timing assertions:
states are polled with a generous timeout."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from dispatch_harness import ToolHarness

from jupyter_agent.builtin_tools.mcp import McpServers
from jupyter_agent.builtin_tools.mcp.client import ServerConnection
from jupyter_agent.host.texts import mcp_text
from jupyter_agent.tools import ToolPool

ECHO_SERVER = Path(__file__).resolve().parents[3] / "fixtures" / "mcp_echo_server.py"
STDIO_ECHO = {"command": sys.executable, "args": [str(ECHO_SERVER)]}
#: Starts the echo server the first time; after that (its marker file exists) it exits with a message.
ONCE = (
    "import os, runpy, sys\n"
    "marker, server = sys.argv[1], sys.argv[2]\n"
    "if os.path.exists(marker): sys.exit('config.toml went away; cannot start')\n"
    "open(marker, 'w').close()\n"
    "sys.argv = [server]\n"
    "runpy.run_path(server, run_name='__main__')\n"
)


def _pool_of(servers: McpServers, pool: ToolPool) -> Callable[[], None]:
    def sync() -> None:
        for source, tools in servers.sources().items():
            pool.set_source(source, tools)

    return sync


async def _until(condition: Callable[[], bool], seen: Callable[[], None] = lambda: None) -> None:
    for _ in range(1200):  # 60 s
        seen()
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the condition did not hold within 60 s")


async def _pid(server: ServerConnection) -> int:
    """The server's process id, from the line it writes to stderr at start."""
    assert server.stderr is not None
    for _ in range(200):
        found = re.search(r"pid (\d+)", server.stderr.text())
        if found:
            return int(found.group(1))
        await asyncio.sleep(0.05)
    raise AssertionError("the server did not say its pid")


def _manager(tmp_path: Path, lines: list[str]) -> tuple[McpServers, ToolHarness]:
    """Servers whose tools go to a pool as the kernel host wires them, and calls through a real Dispatcher."""
    pool = ToolPool()
    servers = McpServers(report=lines.append)
    servers.on_change = _pool_of(servers, pool)
    return servers, ToolHarness(tmp_path, pool=pool)


def test_a_killed_server_comes_back_by_itself_and_a_later_call_works(tmp_path: Path) -> None:
    async def scenario() -> None:
        lines: list[str] = []
        servers, tools = _manager(tmp_path, lines)
        servers.configure({"echo": STDIO_ECHO})
        await servers.settled()
        first = servers.server("echo")
        assert first is not None and first.client is not None
        os.kill(await _pid(first), signal.SIGKILL)

        shown: list[str] = []
        await _until(lambda: first.client is None, lambda: shown.append(mcp_text(servers.statuses())))
        refused = await tools.acall("mcp__echo__echo", {"text": "anyone?"})
        assert refused.error_code == "NOT_AVAILABLE"
        assert refused.content.startswith(
            "NOT_AVAILABLE: echo (MCP server 'echo') cannot run: the server is not connected (it is reconnecting "
            "(try 1 of 6) after: it closed the connection"
        )

        def back() -> bool:
            now = servers.server("echo")
            return (
                now is not None and now is not first and now.client is not None and now.reconnecting is None
            )

        await _until(back, lambda: shown.append(mcp_text(servers.statuses())))
        assert any(text.startswith("echo  reconnecting (try 1)") for text in shown), shown
        answered = await tools.acall("mcp__echo__echo", {"text": "back"})
        assert (answered.is_error, answered.content) == (False, "echo: back")
        assert mcp_text(servers.statuses()) == "echo  connected   5 tools"
        assert lines[-2:] == [
            "MCP server 'echo' stopped (it closed the connection (its process exited?)); reconnecting",
            "MCP server 'echo' reconnected (try 1): 5 tools",
        ]
        await servers.aclose()

    asyncio.run(scenario())


def test_a_server_that_cannot_start_again_is_down_until_restarted(tmp_path: Path) -> None:
    marker = tmp_path / "started-once"
    config = {
        "command": sys.executable,
        "args": ["-c", ONCE, str(marker), str(ECHO_SERVER)],
        "cwd": str(tmp_path),
    }

    async def scenario() -> None:
        lines: list[str] = []
        servers, tools = _manager(tmp_path, lines)
        servers.reconnect_delays = (0.0, 0.0)
        servers.configure({"echo": config})
        await servers.settled()
        first = servers.server("echo")
        assert first is not None and first.client is not None
        os.kill(await _pid(first), signal.SIGKILL)

        def down() -> bool:
            return [s.state for s in servers.statuses()] == ["down"]

        await _until(down)
        text = mcp_text(servers.statuses())
        assert text.startswith("echo  down\n"), text
        detail = text.splitlines()[1].strip()
        assert detail.startswith("down: it did not start again: "), detail
        assert detail.endswith("(stderr: config.toml went away; cannot start); %agent mcp restart echo"), (
            detail
        )
        refused = await tools.acall("mcp__echo__echo", {"text": "anyone?"})
        assert refused.error_code == "NOT_AVAILABLE"
        assert "(it is down: it did not start again: " in refused.content
        assert refused.content.endswith("); `%agent mcp restart echo` starts it again")
        assert lines[-1].startswith("MCP server 'echo' is down: it did not start again: ")

        marker.unlink()  # the user fixes what was wrong, then restarts it
        await servers.restart("echo")
        await servers.settled()
        assert mcp_text(servers.statuses()) == "echo  connected   5 tools"
        answered = await tools.acall("mcp__echo__echo", {"text": "restarted"})
        assert answered.content == "echo: restarted"
        await servers.aclose()

    asyncio.run(scenario())
