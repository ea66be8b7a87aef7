"""The scripted server's HTTP side: one handler thread per connection, answering `POST /v1/messages` (SSE or JSON)
and `/v1/messages/count_tokens`, with the strict gate's rules in front when the server is strict."""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol, cast
from urllib.parse import urlsplit

from ..base.json_values import is_object
from .recording import RecordedRequest, Unscripted
from .script import ERROR_STATUS, Fault, Turn
from .server_tools import unanswered_server_call
from .strict.binding import BINDING_BETA
from .strict.gate import Admission, StrictGate
from .strict.rejection import Rejection, invalid
from .tool_search import answered, tool_search_problem
from .wire import (
    Shaped,
    content_blocks,
    error_body,
    estimate_tokens,
    full_message,
    stream_events,
    unsupported_field,
)

_log = logging.getLogger("jupyter_agent.testing")


def _first_problem(body: dict[str, Any], rejects: frozenset[str]) -> Rejection | None:
    """The 400 the API gives before it looks at the rest: a field it does not take, a server tool call left
    without its result, a tool search rule broken (`tool_search.py`)."""
    rejected = unsupported_field(body, rejects)
    if rejected is not None:
        return invalid(f"{rejected}: Extra inputs are not permitted")
    unanswered = unanswered_server_call(body)
    if unanswered is not None:
        return invalid(unanswered)
    return tool_search_problem(body)


_MESSAGES = "/v1/messages"
_COUNT_TOKENS = "/v1/messages/count_tokens"
#: The API's request size limit for both routes (docs "Errors": 32 MB, answered 413 `request_too_large`).
MAX_REQUEST_BYTES = 32 * 1024 * 1024


class ScriptOwner(Protocol):
    """What a handler asks of the server that owns it (`server.ScriptedServer` is one, and starts the handlers):
    the rules, the next scripted turn, and the bookkeeping of requests and connections."""

    rejects: frozenset[str]
    gate: StrictGate | None

    def _record(self, request: RecordedRequest) -> None: ...
    def _track(self, connection: socket.socket, *, opened: bool) -> None: ...
    def _quiet_for(self, seconds: float) -> None: ...
    def _new_request_id(self) -> str: ...
    def _next_turn(
        self, body: dict[str, Any], recording: Callable[[int], RecordedRequest]
    ) -> tuple[int, Turn]: ...


class HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], owner: ScriptOwner) -> None:
        self.owner = owner
        super().__init__(address, Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (its stream parser raised, a test ended) is normal, not a traceback."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked SSE, as the real API
    server_version = "ScriptedAnthropic/1"
    disable_nagle_algorithm = True  # small SSE writes must not wait ~40 ms for a delayed ACK

    @property
    def owner(self) -> ScriptOwner:
        return cast(HTTPServer, self.server).owner

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
        if self.owner.gate is not None and length > MAX_REQUEST_BYTES:
            self._record(None)
            self._send_error(413, "request_too_large", "Request exceeds the maximum allowed number of bytes.")
            return
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
            self._count_tokens(body)
        else:
            self._record(body)
            self._send_error(
                404, "not_found_error", f"{self.command} {self.path} is not served by the scripted server"
            )

    def _recording(
        self, body: Any, index: int | None = None, admission: Admission | None = None
    ) -> RecordedRequest:
        headers = {k.lower(): v for k, v in self.headers.items()}
        available = None if admission is None else admission.available_tools
        return RecordedRequest(
            method=self.command,
            path=self.path,
            headers=headers,
            body=body,
            index=index,
            available_tools=available,
        )

    def _record(self, body: Any) -> None:
        self.owner._record(self._recording(body))

    def _refuse(self, body: Any, rejection: Rejection) -> None:
        """Answer with the API's error, remembering why in `RecordedRequest.refusal` and the log (a failing test's
        report then says what the server refused)."""
        request = replace(self._recording(body), refusal=rejection.summary())
        self.owner._record(request)
        _log.warning("scripted server refused %s %s: %s", self.command, self.path, request.refusal)
        details = None if rejection.error_code is None else {"error_code": rejection.error_code}
        self._send_error(rejection.status, rejection.error_type, rejection.message, details=details)

    def _lower_headers(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

    def _count_tokens(self, body: Any) -> None:
        gate = self.owner.gate
        if gate is None:
            self._record(body)
            self._send_json(200, {"input_tokens": estimate_tokens(body)})
            return
        admitted = gate.admit(body if is_object(body) else {}, self._lower_headers(), "count_tokens")
        if isinstance(admitted, Rejection):
            self._refuse(body, admitted)
        else:
            self._record(body)
            self._send_json(200, {"input_tokens": admitted.tokens})

    def _messages(self, raw_body: Any) -> None:
        body = cast(dict[str, Any], raw_body) if isinstance(raw_body, dict) else {}
        problem = _first_problem(body, self.owner.rejects)
        if problem is not None:
            self._refuse(body, problem)
            return
        admission: Admission | None = None
        if self.owner.gate is not None:
            admitted = self.owner.gate.admit(body, self._lower_headers(), "messages")
            if isinstance(admitted, Rejection):
                self._refuse(body, admitted)
                return
            admission = admitted
        try:
            index, turn = self.owner._next_turn(body, lambda i: self._recording(raw_body, i, admission))
        except Unscripted as e:
            self._send_error(500, "api_error", str(e), headers={"x-should-retry": "false"})
            return
        resolved = answered(turn, body, index)
        if isinstance(resolved, str):
            self._send_error(500, "api_error", resolved, headers={"x-should-retry": "false"})
            return
        turn = resolved
        fault = turn.fault
        if fault is not None and fault.kind == "no_response":
            self.owner._quiet_for(fault.seconds)
            self.close_connection = True
        elif fault is not None and fault.kind == "http_error":
            self._send_fault(fault)
        elif body.get("stream") is True:
            self._stream(turn, body, index, self._shaped(turn, index, admission))
        elif fault is not None and fault.kind in ("cut_stream", "stall"):
            self.close_connection = True  # no response at all: the SDK sees the connection drop
        elif fault is not None:
            self._send_fault(fault)
        else:
            time.sleep(turn.delay)
            self._send_json(200, full_message(turn, body, index, self._shaped(turn, index, admission)))

    def _shaped(self, turn: Turn, index: int, admission: Admission | None) -> Shaped | None:
        """The strict server's changes to the answer: signed thinking, computed usage, `input_transformations`."""
        gate = self.owner.gate
        if gate is None or admission is None:
            return None
        content = gate.respond(
            content_blocks(turn, index), admission, request_index=index, stop_reason=turn.resolved_stop_reason
        )
        usage = admission.usage
        computed = None
        if usage is not None:
            computed = {
                "input_tokens": usage.input_tokens,
                "cache_creation_input_tokens": usage.cache_creation_input_tokens,
                "cache_read_input_tokens": usage.cache_read_input_tokens,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": usage.ephemeral_5m_input_tokens,
                    "ephemeral_1h_input_tokens": usage.ephemeral_1h_input_tokens,
                },
            }
        extra: dict[str, Any] = {}
        if BINDING_BETA in admission.betas:
            extra["input_transformations"] = list(admission.binding.transformations)
        return Shaped(content=content, usage=computed, extra=extra)

    def _stream(self, turn: Turn, body: dict[str, Any], index: int, shaped: Shaped | None) -> None:
        events = stream_events(turn, body, index, shaped)
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
        if fault is not None and fault.kind == "stall":
            self.owner._quiet_for(fault.seconds)  # silence with the connection open, then it drops
        if fault is not None and fault.kind in ("cut_stream", "stall"):
            self.close_connection = True  # no terminating chunk: the body ends mid-stream
            with contextlib.suppress(OSError):
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
        self,
        status: int,
        error_type: str,
        message: str,
        headers: Mapping[str, str] | None = None,
        *,
        details: Mapping[str, str] | None = None,
    ) -> None:
        self._send_json(status, error_body(error_type, message, self.request_id, details), headers)

    def _send_fault(self, fault: Fault) -> None:
        headers = {} if fault.retry_after is None else {"retry-after": f"{fault.retry_after:g}"}
        self._send_error(ERROR_STATUS[fault.error_type], fault.error_type, fault.message, headers)
