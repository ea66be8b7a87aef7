"""The kernel end of the comm to the jupyter-agent labextension (protocol: docs/notebook-protocol.md).

Threads: the agent's tools run on the worker thread, which opens the comm and sends requests (ipykernel
sends iopub messages from any thread through per-thread pipes to its IOPub thread). Replies arrive as
shell `comm_msg`s, which the kernel's main thread dispatches — while a `%%agent` cell runs, that is the
UI thread's `ShellPump` — so `_on_msg` and `_on_close` run on the main thread. They only touch plain
state under a lock and resolve `concurrent.futures.Future`s; the worker awaits those with a timeout.

Whether a live notebook exists is decided by the `hello` the extension sends once the comm is bound to
the panel of this kernel's notebook. The comm is opened as early as the kernel can (`open_early`, at
`%load_ext`), so the hello is usually in before the first run. A run never waits for it; a tool that needs the
answer waits at most until `hello_timeout` after the comm was opened, and only until one comm stayed silent
(no JupyterLab, no extension, a closed page): after that the bridge knows not to wait. A hello that arrives
later always counts, and a comm that stayed silent for `reprobe_after` is opened afresh (a page may have
appeared since) without waiting for it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, cast

from ..base.errors import ToolError

log = logging.getLogger(__name__)

COMM_TARGET = "jupyter_agent.notebook"
PROTOCOL_VERSION = 1
NOT_ANSWERING = "the notebook did not answer; is JupyterLab with the jupyter-agent extension open?"


class CommLike(Protocol):
    """What the bridge needs of a comm (`comm.base_comm.BaseComm` has it; tests use an in-process stand-in)."""

    def open(self, data: dict[str, Any] | None = None) -> None: ...
    def send(self, data: dict[str, Any] | None = None) -> None: ...
    def on_msg(self, callback: Callable[[dict[str, Any]], None] | None) -> None: ...
    def on_close(self, callback: Callable[[dict[str, Any]], None] | None) -> None: ...
    def close(self, data: dict[str, Any] | None = None) -> None: ...


def kernel_comm() -> CommLike:
    """An unopened comm to the extension's target; callbacks are set before `open`, so no reply is missed."""
    import comm

    return cast(CommLike, comm.create_comm(target_name=COMM_TARGET, primary=False))


@dataclass(frozen=True, kw_only=True)
class Hello:
    """The extension's greeting: which notebook (server-relative path) and which browser page answered."""

    path: str
    protocol: int
    client_id: str | None = None


@dataclass(eq=False)
class _Connection:
    comm: CommLike
    opened_at: float
    hello: Hello | None = None
    closed: bool = False
    hello_waiters: list[concurrent.futures.Future[Hello | None]] = field(
        default_factory=list[concurrent.futures.Future[Hello | None]]
    )
    pending: dict[str, concurrent.futures.Future[Mapping[str, Any]]] = field(
        default_factory=dict[str, concurrent.futures.Future[Mapping[str, Any]]]
    )


def _call(fn: Callable[[], None]) -> None:
    fn()


def _settle(
    future: concurrent.futures.Future[Any], value: Any = None, error: BaseException | None = None
) -> None:
    """Resolve a future that a timed-out waiter may have cancelled meanwhile."""
    try:
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)
    except concurrent.futures.InvalidStateError:
        pass


class LiveBridge:
    """One comm per kernel to the page showing this kernel's notebook; see the module docstring."""

    def __init__(
        self,
        *,
        open_comm: Callable[[], CommLike] = kernel_comm,
        notebook_path: str = "",
        hello_timeout: float = 2.0,
        request_timeout: float = 10.0,
        reprobe_after: float = 30.0,
    ) -> None:
        self._open_comm = open_comm
        self.notebook_path = notebook_path
        self.hello_timeout = hello_timeout
        self.request_timeout = request_timeout
        self.reprobe_after = reprobe_after
        self._lock = threading.Lock()
        self._conn: _Connection | None = None
        #: A comm stayed silent (or was closed unanswered) since the last hello: waiting again is not worth it.
        self._silent = False
        #: Runs each publish (open, send, close) of the comm; the provider sets it to the running cell's
        #: context, so a message from the agent's thread has the cell as its parent (ipykernel 7.0 has no
        #: fallback for threads: its `get_parent()` raises LookupError there).
        self.publish_in: Callable[[Callable[[], None]], None] = _call

    # -- worker side -------------------------------------------------------------------------------------
    async def hello(self, *, wait: bool = True) -> Hello | None:
        """The live frontend's hello, or None when no page serves this kernel's notebook (yet).

        Waits at most until `hello_timeout` after the comm was opened, and not at all once a comm stayed silent
        (`wait=False`: never — the comm is opened, and a hello that arrives later is kept for the next call).
        """
        waiter: concurrent.futures.Future[Hello | None] | None = None
        with self._lock:
            conn, fresh = self._connection()
            if not fresh and (conn.hello is not None or conn.closed):
                return conn.hello
            remaining = conn.opened_at + self.hello_timeout - time.monotonic()
            if wait and remaining > 0 and not self._silent:
                waiter = concurrent.futures.Future()
                conn.hello_waiters.append(waiter)
        if fresh:
            self._open_safely(conn)
        if waiter is None:
            return conn.hello
        try:
            return await asyncio.wait_for(asyncio.wrap_future(waiter), remaining)
        except TimeoutError:
            with self._lock:
                if conn.hello is None:
                    self._silent = True
                return conn.hello

    def open_early(self) -> None:
        """Open the comm now, without waiting (at `%load_ext`): the page greets while the user types the
        first request, so the first run finds it live and no run waits for the greeting."""
        with self._lock:
            conn, fresh = self._connection()
        if fresh:
            self._open_safely(conn)

    def _connection(self) -> tuple[_Connection, bool]:
        """The comm to use, and whether it is a new one still to be opened (called under the lock)."""
        stale = self._conn
        if stale is not None and not self._may_reprobe(stale):
            return stale, False
        conn = self._conn = _Connection(comm=self._open_comm(), opened_at=time.monotonic())
        if stale is not None and not stale.closed:
            self._close_quietly(stale)
        return conn, True

    def _open_safely(self, conn: _Connection) -> None:
        try:
            self._open(conn)
        except Exception:  # no comm manager (not in a kernel): simply not live
            log.info("jupyter_agent: could not open the notebook comm", exc_info=True)
            self._on_close(conn, {})

    def current_hello(self) -> Hello | None:
        """The hello as known now, without opening or waiting (for `%agent status`)."""
        with self._lock:
            return self._conn.hello if self._conn is not None and not self._conn.closed else None

    async def request(self, ops: list[dict[str, Any]]) -> list[Mapping[str, Any]]:
        """Send one request and return the raw results, one per op; `NOT_AVAILABLE`/`TIMEOUT` otherwise."""
        return cast(list[Mapping[str, Any]], (await self._exchange(ops))["results"])

    async def open_notebooks(self) -> list[str]:
        """Server-relative paths of every notebook open in the page (an empty request asks for just that)."""
        paths = (await self._exchange([])).get("open_notebooks")
        return [str(p) for p in cast(list[Any], paths)] if isinstance(paths, list) else []

    async def _exchange(self, ops: list[dict[str, Any]]) -> Mapping[str, Any]:
        hello = await self.hello()
        with self._lock:
            conn = self._conn
        if hello is None or conn is None or conn.closed:
            raise ToolError("NOT_AVAILABLE", NOT_ANSWERING)
        request_id = uuid.uuid4().hex
        reply: concurrent.futures.Future[Mapping[str, Any]] = concurrent.futures.Future()
        message: dict[str, Any] = {"type": "request", "request_id": request_id, "ops": ops}
        if hello.client_id is not None:
            message["client_id"] = hello.client_id  # several pages may show this notebook: one answers
        with self._lock:
            if conn.closed:  # closed since the check above: no reply will come
                raise ToolError("NOT_AVAILABLE", NOT_ANSWERING)
            conn.pending[request_id] = reply
        try:
            self.publish_in(lambda: conn.comm.send(message))
            data = await asyncio.wait_for(asyncio.wrap_future(reply), self.request_timeout)
        except TimeoutError:
            raise ToolError(
                "TIMEOUT",
                f"{NOT_ANSWERING} It did not answer within {self.request_timeout:g} s, so the change may or may "
                "not have been made; call NotebookRead to see the notebook as it is now",
            ) from None
        finally:
            with self._lock:
                conn.pending.pop(request_id, None)
        results = data.get("results")
        if data.get("error") or not isinstance(results, list) or len(cast(list[Any], results)) != len(ops):
            raise ToolError(
                "EXECUTION_ERROR",
                f"the notebook refused the request: {data.get('message') or data.get('error') or 'bad reply'}",
            )
        return data

    def _may_reprobe(self, conn: _Connection) -> bool:
        """Open a new comm: the page of a closed one may be back; one that never had a page, or stayed
        silent, may have one after a while."""
        if conn.hello is not None:
            return conn.closed
        return time.monotonic() - conn.opened_at > self.reprobe_after

    def _close_quietly(self, conn: _Connection) -> None:
        try:
            self.publish_in(conn.comm.close)
        except Exception:
            log.debug("jupyter_agent: closing a silent notebook comm failed", exc_info=True)

    def _open(self, conn: _Connection) -> None:
        """Callbacks first, then `open`: a frontend may answer before `open` returns."""
        conn.comm.on_msg(lambda msg: self._on_msg(conn, msg))
        conn.comm.on_close(lambda msg: self._on_close(conn, msg))
        self.publish_in(
            lambda: conn.comm.open({"notebook_path": self.notebook_path, "protocol": PROTOCOL_VERSION})
        )

    # -- main-thread side (comm callbacks) ---------------------------------------------------------------
    def _on_msg(self, conn: _Connection, msg: Mapping[str, Any]) -> None:
        content = cast(Mapping[str, Any], msg.get("content") or {})
        data = cast(Mapping[str, Any], content.get("data") or {})
        kind = data.get("type")
        if kind == "hello":
            self._on_hello(conn, data)
        elif kind == "path_changed":
            with self._lock:
                if conn.hello is not None:
                    conn.hello = replace(conn.hello, path=str(data.get("path", conn.hello.path)))
        elif kind == "response":
            with self._lock:
                reply = conn.pending.pop(str(data.get("request_id")), None)
            if reply is not None:
                _settle(reply, data)
        else:
            log.debug("jupyter_agent: ignoring notebook bridge message %r", kind)

    def _on_hello(self, conn: _Connection, data: Mapping[str, Any]) -> None:
        client = data.get("client_id")
        protocol = data.get("protocol")
        hello = Hello(
            path=str(data.get("path", "")),
            protocol=protocol if isinstance(protocol, int) else 0,
            client_id=client if isinstance(client, str) else None,
        )
        with self._lock:
            if conn.hello is not None:  # a second page showing the same notebook: the first one serves
                return
            conn.hello = hello
            self._silent = False
            waiters, conn.hello_waiters = conn.hello_waiters, []
        for waiter in waiters:
            _settle(waiter, hello)

    def _on_close(self, conn: _Connection, msg: Mapping[str, Any]) -> None:
        with self._lock:
            conn.closed = True
            if conn.hello is None and conn is self._conn:  # closed unanswered: no extension in that page
                self._silent = True
            waiters, conn.hello_waiters = conn.hello_waiters, []
            pending, conn.pending = conn.pending, {}
        for waiter in waiters:
            _settle(waiter, None)
        error = ToolError(
            "NOT_AVAILABLE",
            "the notebook was closed in JupyterLab before it answered, so the change may or may not have been "
            "made; call NotebookRead to see the notebook as it is now",
        )
        for reply in pending.values():
            _settle(reply, error=error)
