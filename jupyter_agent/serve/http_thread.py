"""The MCP server's HTTP side: uvicorn on a thread of its own, with its own event loop, on 127.0.0.1 only.

The socket is bound here, on the caller's thread, so a taken `--port` fails at once with its reason, and
`--port 0` (the default) gets a free port that is known before the thread starts.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

HOST = "127.0.0.1"


class HttpThread:
    """Serves `app` on `HOST:port` until `stop`; never on another interface."""

    def __init__(self, app: Any, *, port: int = 0) -> None:
        import uvicorn

        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self._socket.bind((HOST, port))
        except OSError as exc:
            self._socket.close()
            raise OSError(
                f"cannot listen on {HOST}:{port}: {exc.strerror or exc}; choose another --port"
            ) from None
        self.port: int = self._socket.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [self._socket]},
            name="jupyter-agent-serve",
            daemon=True,
        )

    def start(self, timeout: float = 10.0) -> None:
        """Start serving; return once uvicorn accepts connections (or raise why it did not)."""
        self._thread.start()
        ready = threading.Event()

        def watch() -> None:
            while not self._server.started and self._thread.is_alive():
                ready.wait(0.02)
            ready.set()

        threading.Thread(target=watch, daemon=True).start()
        ready.wait(timeout)
        if not self._server.started:
            self.stop()
            raise RuntimeError(
                f"the MCP server on {HOST}:{self.port} did not start (within {timeout:g} s); the kernel's log says why"
            )

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop accepting, end open streams, join the thread; the port is closed afterwards."""
        self._server.should_exit = True
        self._server.force_exit = True  # open SSE streams would keep a graceful shutdown waiting
        if self._thread.is_alive():
            self._thread.join(timeout)
        self._socket.close()
