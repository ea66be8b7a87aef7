"""A server that went away by itself (its process died, it closed the connection) is started again, with backoff.

Tries wait 0.5 s, 1, 2, 4, 8 and 8 s (`DELAYS`) before each start; a try counts as done when the server
connected (its tools are offered again) or failed to start. Meanwhile its tools stay offered and a call answers
NOT_AVAILABLE at once ("it is reconnecting (try 2) …"), never waiting. After the last try the server is down
until `%agent mcp restart NAME`. `%agent mcp` shows `reconnecting (try N)` or `down` (`Recovery`).

A server the user restarts, reconfigures or removes meanwhile is theirs again: the loop sees another connection
under that name and ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

#: Seconds before each try (their number is the number of tries).
DELAYS: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0, 8.0, 8.0)


@dataclass(frozen=True, kw_only=True)
class Recovery:
    """Where a server that went away is: `try_number` of the tries under way, or `down` after the last one."""

    try_number: int
    #: How many tries there are in all.
    tries: int
    reason: str
    down: bool = False

    def state(self) -> str:
        """`down: <why>` or `reconnecting (try 2 of 6) after: <why>` (a call's NOT_AVAILABLE adds the restart)."""
        if self.down:
            return f"down: {self.reason}"
        return f"reconnecting (try {self.try_number} of {self.tries}) after: {self.reason}"

    def why(self, name: str) -> str:
        """The detail line of `%agent mcp`, and the report when it gives up."""
        return f"{self.state()}; %agent mcp restart {name}" if self.down else self.state()


class Restartable(Protocol):
    """What the loop needs of a connection (client.ServerConnection, which imports this module)."""

    name: str
    lost: str
    error: str | None
    client: Any
    listed: list[Any]
    reconnecting: Recovery | None

    async def wait_ready(self, timeout: float) -> None: ...

    async def close(self) -> None: ...


Connection = TypeVar("Connection", bound=Restartable)


async def reconnect(
    lost: Connection,
    *,
    start: Callable[[Connection], Connection],
    current: Callable[[], Connection | None],
    startup_timeout: float,
    report: Callable[[str], None],
    on_change: Callable[[], None],
    delays: tuple[float, ...] = DELAYS,
) -> None:
    """Start `lost` again until it connects or the tries run out. `start(previous)` starts a connection in its
    place (keeping its tools listed meanwhile); `current()` is the connection under its name now. The state is
    kept on the connection under the name (`ServerConnection.reconnecting`), which `%agent mcp` shows."""
    name, reason, previous = lost.name, lost.lost, lost
    if delays:
        report(f"MCP server '{name}' stopped ({reason}); reconnecting")
    for number, delay in enumerate(delays, start=1):
        previous.reconnecting = Recovery(try_number=number, tries=len(delays), reason=reason)
        await asyncio.sleep(delay)
        if current() is not previous:
            return  # restarted, reconfigured or removed meanwhile
        server = start(previous)
        server.reconnecting = previous.reconnecting
        await server.wait_ready(startup_timeout)
        if current() is not server:
            return
        if server.client is not None:
            server.reconnecting = None
            report(f"MCP server '{name}' reconnected (try {number}): {len(server.listed)} tools")
            return
        reason = _first_line(server.error) or server.lost or reason
        await server.close()
        previous = server
    down = Recovery(try_number=len(delays), tries=len(delays), reason=reason, down=True)
    previous.reconnecting = down
    on_change()
    report(f"MCP server '{name}' is {down.why(name)}")


def _first_line(error: str | None) -> str:
    """`it did not start again: <why> (stderr: <its last line>)` from a start failure's message."""
    lines = error.splitlines() if error else []
    if not lines:
        return ""
    _, _, why = lines[0].partition("did not start: ")
    if not why:
        return lines[0]
    said = [line.strip() for line in lines[lines.index("  stderr:") + 1 :]] if "  stderr:" in lines else []
    return f"it did not start again: {why}" + (f" (stderr: {said[-1]})" if said else "")
