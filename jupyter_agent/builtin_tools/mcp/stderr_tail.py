"""Keep the first lines a stdio MCP server writes to stderr (why it failed), with bounded memory, no disk.

The server's stderr is a pipe; a daemon thread reads it to the end so a chatty server never blocks on a
full pipe, keeping the first lines and the last few.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from typing import TextIO

from ...masking import clip

_LINE_CHARS = 400


class StderrTail:
    def __init__(self, *, head_lines: int = 15, tail_lines: int = 5) -> None:
        read_fd, write_fd = os.pipe()
        #: Handed to the transport as the server's stderr; our copy is closed once the server is started.
        self.writer: TextIO = os.fdopen(write_fd, "w")
        self._head: list[str] = []
        self._tail: deque[str] = deque(maxlen=tail_lines)
        self._head_lines = head_lines
        self._dropped = 0
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, args=(read_fd,), name="mcp-stderr", daemon=True)
        self._reader.start()

    def _read(self, fd: int) -> None:
        with os.fdopen(fd, "rb") as stream:
            for raw in stream:
                line = raw.decode("utf-8", "replace").rstrip()
                line = clip(line, _LINE_CHARS)
                with self._lock:
                    if len(self._head) < self._head_lines:
                        self._head.append(line)
                    else:
                        if len(self._tail) == self._tail.maxlen:
                            self._dropped += 1
                        self._tail.append(line)

    def close_writer(self) -> None:
        if not self.writer.closed:
            self.writer.close()

    def text(self, *, wait: float = 0.0) -> str:
        """What was kept; `wait` gives the reader time to reach the end after the server exited."""
        self.close_writer()
        self._reader.join(wait)
        with self._lock:
            lines = list(self._head)
            if self._dropped:
                lines.append(f"… ({self._dropped} lines not kept)")
            lines.extend(self._tail)
        return "\n".join(lines)
