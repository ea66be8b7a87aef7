"""`ScriptedServer`: the Anthropic Messages API on 127.0.0.1, answering from a script of turns.

Standard library only (`http.server` in a daemon thread), so it runs wherever the tests run and the
real `anthropic` client can talk to it over real HTTP: request building, retries, SSE parsing and
error mapping are all exercised, nothing in the SDK is patched.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self, cast
from urllib.parse import urlsplit

from .script import ERROR_STATUS, Fault, Script, ScriptFn, Turn
from .server_tools import unanswered_server_call
from .wire import error_body, estimate_tokens, full_message, stream_events

#: A dummy key for clients of the scripted server; the server accepts any key.
TEST_API_KEY = "sk-ant-scripted-test-key"

_MESSAGES = "/v1/messages"
_COUNT_TOKENS = "/v1/messages/count_tokens"


@dataclass(frozen=True, kw_only=True)
class RecordedRequest:
    """One request as the server received it. `index` is the script entry it consumed, if any."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    index: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "path": self.path,
            "headers": dict(self.headers),
            "body": self.body,
            "index": self.index,
        }


# --- HTTP ---------------------------------------------------------------------------------------------


class _Unscripted(Exception):
    """No turn for a request (script exhausted or the script callable raised); answered as a 500."""


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], owner: ScriptedServer) -> None:
        self.owner = owner
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (its stream parser raised, a test ended) is normal, not a traceback."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked SSE, as the real API
    server_version = "ScriptedAnthropic/1"
    disable_nagle_algorithm = True  # small SSE writes must not wait ~40 ms for a delayed ACK

    @property
    def owner(self) -> ScriptedServer:
        return cast(_HTTPServer, self.server).owner

    def setup(self) -> None:
        super().setup()
        self.owner._track(self.connection, opened=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.owner._track(self.connection, opened=False)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read `ScriptedServer.recorded`, not stderr."""

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_PUT(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def do_PATCH(self) -> None:
        self._handle()

    def _handle(self) -> None:
        self.request_id = self.owner._new_request_id()
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except (json.JSONDecodeError, UnicodeDecodeError):
            body = None
            if self.command == "POST":
                self._record(None)
                self._send_error(400, "invalid_request_error", "request body is not valid JSON")
                return
        route = urlsplit(self.path).path.rstrip("/")
        if self.command == "POST" and route == _MESSAGES:
            self._messages(body)
        elif self.command == "POST" and route == _COUNT_TOKENS and "count_tokens" in self.owner.rejects:
            self._record(body)
            self._send_error(404, "not_found_error", "count_tokens is not supported by this endpoint")
        elif self.command == "POST" and route == _COUNT_TOKENS:
            self._record(body)
            self._send_json(200, {"input_tokens": estimate_tokens(body)})
        else:
            self._record(body)
            self._send_error(
                404, "not_found_error", f"{self.command} {self.path} is not served by the scripted server"
            )

    def _recording(self, body: Any, index: int | None = None) -> RecordedRequest:
        headers = {k.lower(): v for k, v in self.headers.items()}
        return RecordedRequest(method=self.command, path=self.path, headers=headers, body=body, index=index)

    def _record(self, body: Any) -> None:
        self.owner._record(self._recording(body))

    def _messages(self, raw_body: Any) -> None:
        body = cast(dict[str, Any], raw_body) if isinstance(raw_body, dict) else {}
        rejected = _unsupported_field(body, self.owner.rejects)
        if rejected is not None:
            self._record(body)
            self._send_error(400, "invalid_request_error", f"{rejected}: Extra inputs are not permitted")
            return
        unanswered = unanswered_server_call(body)
        if unanswered is not None:
            self._record(body)
            self._send_error(400, "invalid_request_error", unanswered)
            return
        try:
            index, turn = self.owner._next_turn(body, lambda i: self._recording(raw_body, i))
        except _Unscripted as e:
            self._send_error(500, "api_error", str(e), headers={"x-should-retry": "false"})
            return
        fault = turn.fault
        if fault is not None and fault.kind == "http_error":
            self._send_fault(fault)
        elif body.get("stream") is True:
            self._stream(turn, body, index)
        elif fault is not None and fault.kind == "cut_stream":
            self.close_connection = True  # no response at all: the SDK sees the connection drop
        elif fault is not None:
            self._send_fault(fault)
        else:
            time.sleep(turn.delay)
            self._send_json(200, full_message(turn, body, index))

    def _stream(self, turn: Turn, body: dict[str, Any], index: int) -> None:
        events = stream_events(turn, body, index)
        fault = turn.fault
        if fault is not None:
            events = events[: fault.after_events]
            if fault.kind == "stream_error":
                events.append(("error", error_body(fault.error_type, fault.message, self.request_id)))
        self.send_response(200)
        self._common_headers()
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for n, (name, data) in enumerate(events):
            if n and turn.delay:
                time.sleep(turn.delay)
            payload = f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))
            self.wfile.flush()
        if fault is not None and fault.kind == "cut_stream":
            self.close_connection = True  # no terminating chunk: the body ends mid-stream
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _common_headers(self) -> None:
        self.send_header("request-id", self.request_id)

    def _send_json(
        self, status: int, data: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self._common_headers()
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()

    def _send_error(
        self, status: int, error_type: str, message: str, headers: Mapping[str, str] | None = None
    ) -> None:
        self._send_json(status, error_body(error_type, message, self.request_id), headers)

    def _send_fault(self, fault: Fault) -> None:
        headers = {} if fault.retry_after is None else {"retry-after": f"{fault.retry_after:g}"}
        self._send_error(ERROR_STATUS[fault.error_type], fault.error_type, fault.message, headers)


def _unsupported_field(body: dict[str, Any], rejects: frozenset[str]) -> str | None:
    """The JSON path of the first field `rejects` names in `body` (`system.0.cache_control`), else None."""
    if "thinking" in rejects and "thinking" in body:
        return "thinking"
    if "cache_control" not in rejects:
        return None
    stack: list[tuple[str, Any]] = [(key, value) for key, value in body.items()]
    while stack:
        path, value = stack.pop(0)
        if isinstance(value, dict):
            mapping = cast(dict[str, Any], value)
            if "cache_control" in mapping:
                return f"{path}.cache_control"
            stack.extend((f"{path}.{k}", v) for k, v in mapping.items())
        elif isinstance(value, list):
            stack.extend((f"{path}.{i}", v) for i, v in enumerate(cast(list[Any], value)))
    return None


class ScriptedServer:
    """Serves `POST /v1/messages` (SSE or JSON) and `/v1/messages/count_tokens` from `script`.

    `script` is a sequence of `Turn`s, one per messages request in order, or a callable
    `(request_body, index) -> Turn`. Use as a context manager, or call `start()` / `stop()`.
    Every request is recorded (`recorded`; bodies of messages requests in `requests`).

    `rejects` makes it behave like an Anthropic-compatible endpoint without some features: "cache_control"
    or "thinking" in a messages request is a 400 naming the field (the request uses no script entry), and
    "count_tokens" makes that route a 404.
    """

    def __init__(
        self,
        script: Script,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        on_request: Callable[[RecordedRequest], None] | None = None,
        rejects: frozenset[str] = frozenset(),
    ) -> None:
        self._script: ScriptFn | tuple[Turn, ...] = script if callable(script) else tuple(script)
        self.rejects = rejects
        self._address = (host, port)
        self._on_request = on_request
        self._lock = threading.Condition()
        self._recorded: list[RecordedRequest] = []
        self._served = 0
        self._request_count = 0
        self._connections: set[socket.socket] = set()
        self._http: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle

    def start(self) -> Self:
        if self._http is not None:
            raise RuntimeError("ScriptedServer is already started")
        self._http = _HTTPServer(self._address, self)
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
                raise _Unscripted(
                    f"script exhausted after {len(script)} turns: messages request #{index + 1} has no scripted answer"
                )
            return index, script[index]
        try:
            return index, script(body, index)
        except Exception as e:
            raise _Unscripted(
                f"script callable raised {type(e).__name__}: {e} (messages request #{index + 1})"
            ) from e
