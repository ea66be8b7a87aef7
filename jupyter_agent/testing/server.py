"""`ScriptedServer`: the Anthropic Messages API on 127.0.0.1, answering from a script of turns.

Standard library only (`http.server` in a daemon thread), so it runs wherever the tests run and the
real `anthropic` client can talk to it over real HTTP: request building, retries, SSE parsing and
error mapping are all exercised, nothing in the SDK is patched.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Any, Self

from .handler import HTTPServer
from .recording import RecordedRequest, Unscripted
from .script import Script, ScriptFn, Turn
from .strict.gate import StrictGate
from .strict.images import MAX_IMAGE_BYTES
from .strict.models import ServedModel

#: A dummy key for clients of the scripted server; the server accepts any key.
TEST_API_KEY = "sk-ant-scripted-test-key"


class ScriptedServer:
    """Serves `POST /v1/messages` (SSE or JSON) and `/v1/messages/count_tokens` from `script`.

    `script` is a sequence of `Turn`s, one per messages request in order, or a callable
    `(request_body, index) -> Turn`. Use as a context manager, or call `start()` / `stop()`.
    Every request is recorded (`recorded`; bodies of messages requests in `requests`).

    `rejects` makes it behave like an Anthropic-compatible endpoint without some features: "cache_control"
    or "thinking" in a messages request is a 400 naming the field (the request uses no script entry), and
    "count_tokens" makes that route a 404.

    `strict` (the default) makes it as strict as the real API: the request rules of `jupyter_agent.testing.strict`
    (an unknown model is a 404, a request the model's row does not take a 400 with the API's wording, and neither
    uses a script entry), thinking blocks signed and checked as the API binds them, and the prompt cache's usage.
    `models` adds or replaces rows of the model table; `signing_key` gives the signatures a key of the caller's
    (default: one per process); `max_image_bytes` is the base64 size limit of an image (5 MB, Bedrock's and
    Google Cloud's and the wire's; 10 MB on the Claude API per its current docs). `strict=False` answers every
    request from the script, as before.
    """

    def __init__(
        self,
        script: Script,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        on_request: Callable[[RecordedRequest], None] | None = None,
        rejects: frozenset[str] = frozenset(),
        strict: bool = True,
        models: Iterable[ServedModel] = (),
        signing_key: bytes | None = None,
        max_image_bytes: int = MAX_IMAGE_BYTES,
    ) -> None:
        self._script: ScriptFn | tuple[Turn, ...] = script if callable(script) else tuple(script)
        self.rejects = rejects
        self.gate: StrictGate | None = (
            StrictGate(models=models, signing_key=signing_key, max_image_bytes=max_image_bytes)
            if strict
            else None
        )
        self._address = (host, port)
        self._on_request = on_request
        self._lock = threading.Condition()
        self._recorded: list[RecordedRequest] = []
        self._served = 0
        self._request_count = 0
        self._connections: set[socket.socket] = set()
        self._http: HTTPServer | None = None
        self._thread: threading.Thread | None = None
        #: Set by `stop()`: ends the silence of a `stall` / `no_response` fault at once.
        self._stopping = threading.Event()

    # lifecycle

    def start(self) -> Self:
        if self._http is not None:
            raise RuntimeError("ScriptedServer is already started")
        self._stopping.clear()
        self._http = HTTPServer(self._address, self)
        self._thread = threading.Thread(
            target=self._http.serve_forever,
            kwargs={"poll_interval": 0.02},  # `stop()` waits up to one poll interval
            name=f"scripted-server:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and drop open connections (idempotent)."""
        http, self._http = self._http, None
        if http is None:
            return
        self._stopping.set()
        http.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        http.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._http is None:
            raise RuntimeError("ScriptedServer is not started; use `with server:` or server.start()")
        return int(self._http.server_address[1])

    @property
    def url(self) -> str:
        """Base URL for the client, e.g. `anthropic.Anthropic(base_url=server.url, api_key=TEST_API_KEY)`."""
        return f"http://{self._address[0]}:{self.port}"

    # recording

    @property
    def recorded(self) -> list[RecordedRequest]:
        """Every request (any path), in arrival order."""
        with self._lock:
            return list(self._recorded)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Parsed bodies of the `POST /v1/messages` requests, in order (one per script entry used)."""
        with self._lock:
            return [r.body for r in self._recorded if r.index is not None]

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Block until `n` messages requests arrived; returns `requests`. Raises `TimeoutError`."""
        with self._lock:
            if not self._lock.wait_for(lambda: self._served >= n, timeout):
                raise TimeoutError(f"expected {n} messages request(s) within {timeout} s, got {self._served}")
        return self.requests

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._recorded.append(request)
            self._lock.notify_all()
        if self._on_request is not None:
            self._on_request(request)

    def _track(self, connection: socket.socket, *, opened: bool) -> None:
        """Remember open connections, so `stop()` can end idle keep-alive ones and their threads."""
        with self._lock:
            if opened:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    def _quiet_for(self, seconds: float) -> None:
        """A fault's silence: `seconds`, or until the server stops."""
        self._stopping.wait(seconds)

    def _new_request_id(self) -> str:
        with self._lock:
            self._request_count += 1
            return f"req_01scripted{self._request_count:06d}"

    def _next_turn(
        self, body: dict[str, Any], recording: Callable[[int], RecordedRequest]
    ) -> tuple[int, Turn]:
        """Claim the next script entry for `body`, recording the request under that index atomically."""
        with self._lock:
            index = self._served
            self._served += 1
            request = recording(index)
            self._recorded.append(request)
            self._lock.notify_all()
        if self._on_request is not None:
            self._on_request(request)
        script = self._script
        if not callable(script):
            if index >= len(script):
                raise Unscripted(
                    f"script exhausted after {len(script)} turns: messages request #{index + 1} has no scripted answer"
                )
            return index, script[index]
        try:
            return index, script(body, index)
        except Exception as e:
            raise Unscripted(
                f"script callable raised {type(e).__name__}: {e} (messages request #{index + 1})"
            ) from e
