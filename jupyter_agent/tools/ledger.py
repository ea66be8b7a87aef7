"""Read-before-write: what the model has seen, so it never overwrites what the user just changed."""

from __future__ import annotations

import hashlib
import threading

from ..base.errors import ToolError


def content_hash(data: bytes | str) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


class ReadLedger:
    """Content hashes of what the model read, keyed by a file's real path or `notebook#cell_id`."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}
        self._lock = threading.Lock()

    def record(self, key: str, content: bytes | str) -> None:
        with self._lock:
            self._seen[key] = content_hash(content)

    def forget(self, key: str) -> None:
        with self._lock:
            self._seen.pop(key, None)

    def has_read(self, key: str) -> bool:
        with self._lock:
            return key in self._seen

    def require_fresh(self, key: str, current: bytes | str, *, what: str, reread: str) -> None:
        """`NOT_READ` when the model never read `key` in this conversation; `STALE_READ` when it changed since."""
        with self._lock:
            seen = self._seen.get(key)
        if seen is None:
            raise ToolError("NOT_READ", f"{what} has not been read in this conversation; {reread} first")
        if seen != content_hash(current):
            raise ToolError(
                "STALE_READ",
                f"{what} changed since it was last read (the user or another program edited it); "
                f"{reread} again and redo the change on the current content",
            )

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()
