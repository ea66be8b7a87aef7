"""Writing a session file: masked JSON lines, appended whole or not at all, fsynced; 0600 in a 0700 directory."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, cast

from ..masking import mask

Record = dict[str, Any]


def mask_secret_values(text: str) -> str:
    """Replace secret values in `text` before it is saved: the one place the session store masks."""
    return mask(text)


def _masked(value: Any) -> Any:
    if isinstance(value, str):
        return mask_secret_values(value)
    if isinstance(value, Mapping):
        return {str(k): _masked(v) for k, v in cast("Mapping[object, object]", value).items()}
    if isinstance(value, list | tuple):
        return [_masked(v) for v in cast("list[object] | tuple[object, ...]", value)]
    return value


def encode_record(record: Record) -> bytes:
    """One masked JSON line."""
    text = json.dumps(_masked(record), ensure_ascii=False, separators=(",", ":"), default=str)
    return (text + "\n").encode("utf-8", "surrogatepass")


class SessionLog:
    """Appends records to one session file: whole lines or nothing, fsync; created 0600 in a 0700 directory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._checked_tail = False

    def append(self, records: Iterable[Record]) -> None:
        data = b"".join(encode_record(r) for r in records)
        if not data:
            return
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                if not self._checked_tail:
                    data = self._after_torn_line(fd) + data
                    self._checked_tail = True
                self._write_whole(fd, data)
            finally:
                os.close(fd)

    def _write_whole(self, fd: int, data: bytes) -> None:
        """Write and fsync `data`; on a failure part-way (ENOSPC, EFBIG, EIO) cut the file back to where it was."""
        size = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except OSError:
            try:
                os.ftruncate(fd, size)
            except OSError:
                self._checked_tail = False  # a torn line stays: the next write starts on a new line
            raise

    def _after_torn_line(self, fd: int) -> bytes:
        """A newline first when a killed writer left a torn last line, so our first record stays whole."""
        size = os.fstat(fd).st_size
        if size == 0:
            return b""
        with open(self.path, "rb") as f:
            f.seek(size - 1)
            return b"" if f.read(1) == b"\n" else b"\n"
