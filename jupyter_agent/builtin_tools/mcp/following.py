"""Keep up with a connected MCP server: re-list its tools when it says they changed, and notice when it is gone.

A server says its tools changed in one of two ways, by protocol version: a `notifications/tools/list_changed`
notification (2025 protocols; `ServerConnection` hands it to `Relisting.request`), or an event on a
`subscriptions/listen` stream (2026-07-28, opened here when the server's `tools.listChanged` capability says so).
Either way the tools are listed again and the connection's `on_event` runs, so the pool follows and the next
request tells the model the append-only way (`tool_addition` / `tool_removal`, agent/updates.py).

A server process that dies while no call is in flight surfaces nowhere in the SDK (no exception, no message):
its dispatcher only marks itself closed. `watch_closed` looks at that mark (a private attribute, read with
`getattr` so that an SDK without it only loses this early notice; a call still finds the connection gone).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)

#: How often the liveness check looks at the connection (seconds).
_WATCH_EVERY = 0.25
#: Loop iterations a finished call gives a change announced just before its answer to reach `Relisting`.
_YIELDS = 50


class Relisting:
    """Re-lists a server's tools on request, one listing at a time; `caught_up` waits for the pending one.

    A tool call whose server changed its tools during the call waits for the new listing before its result goes
    back (`McpTool.run`), so the very next request already tells the model about the change."""

    def __init__(self, relist: Callable[[], Awaitable[None]]) -> None:
        self._relist = relist
        self._pending: asyncio.Task[None] | None = None
        self._again = False

    def request(self) -> None:
        """A change was announced: list again (once more after the current listing, if one is running)."""
        if self._pending is not None and not self._pending.done():
            self._again = True
            return
        self._pending = asyncio.create_task(self._run(), name="mcp-relist")

    async def _run(self) -> None:
        while True:
            self._again = False
            try:
                await self._relist()
            except Exception as exc:  # a listing that fails keeps the tools of the last one
                log.warning("re-listing an MCP server's tools failed: %s", exc)
            if not self._again:
                return

    async def caught_up(self) -> None:
        """Give an announcement that arrived just before now its turn, then wait for the listing it started.

        The SDK hands a notification on through a few spawned tasks (dispatcher, cache eviction, our handler),
        each one loop iteration; `_YIELDS` iterations cover them with room to spare and cost microseconds."""
        for _ in range(_YIELDS):
            if self._pending is not None and not self._pending.done():
                break
            await asyncio.sleep(0)
        pending = self._pending
        if pending is not None and not pending.done():
            await asyncio.wait({pending})

    def cancel(self) -> None:
        if self._pending is not None:
            self._pending.cancel()


def connection_closed(client: Any) -> bool:
    """Whether the client's connection to the server has closed (its dispatcher's mark; False if unknown)."""
    dispatcher = getattr(getattr(client, "session", None), "_dispatcher", None)
    return getattr(dispatcher, "_closed", False) is True


async def watch_closed(client: Any) -> None:
    """Return once the connection has closed."""
    while not connection_closed(client):
        await asyncio.sleep(_WATCH_EVERY)


async def listen_for_changes(client: Any, on_change: Callable[[], None]) -> None:
    """Follow the server's `subscriptions/listen` stream of tool changes, when its protocol and capability offer
    one; return when the stream ends (a server without it: at once)."""
    from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost

    tools = client.server_capabilities.tools
    if tools is None or not tools.list_changed:
        return
    try:
        async with client.listen(tools_list_changed=True) as subscription:
            async for _event in subscription:
                on_change()
    except ListenNotSupportedError:
        return  # a 2025 protocol: changes come as notifications (ServerConnection._on_message)
    except SubscriptionLost as exc:
        log.info("the MCP tool-change stream ended: %s", exc)
    except Exception as exc:
        log.info("could not follow the MCP server's tool changes: %s", exc)


async def follow(client: Any, on_change: Callable[[], None]) -> None:
    """Follow the server's tool changes until its connection closes; returns then (cancel it to stop sooner)."""
    listening = asyncio.create_task(listen_for_changes(client, on_change), name="mcp-listen")
    try:
        await watch_closed(client)
    finally:
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await listening
