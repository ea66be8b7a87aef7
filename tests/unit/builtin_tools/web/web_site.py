"""A real HTTP(S) server on 127.0.0.1 for the WebFetch tests: routes set per test, every request recorded."""

from __future__ import annotations

import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar


class SiteHandler(BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, tuple[int, dict[str, str], bytes]]] = {}
    seen: ClassVar[list[tuple[str, dict[str, str]]]] = []

    def do_GET(self) -> None:
        self.seen.append((self.path, dict(self.headers)))
        if self.path == "/drip":  # a byte now and then, for ever: only a deadline or a cap ends it
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            stop = threading.Event()
            while not stop.wait(0.2):
                try:
                    self.wfile.write(b"x")
                    self.wfile.flush()
                except OSError:
                    return
        if self.path == "/slow":  # silent for longer than httpx's default timeout (5 s), then answers
            threading.Event().wait(6)
        status, headers, body = self.routes.get(self.path, (404, {"Content-Type": "text/plain"}, b"nope"))
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serving(tls: ssl.SSLContext | None = None) -> Iterator[int]:
    """A server on 127.0.0.1 (HTTPS with `tls`) for the duration; yields its port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), SiteHandler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    SiteHandler.seen = []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
