"""Read-before-write: what the model has seen, so it never overwrites what the user just changed."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping

from ..base.errors import ToolError


def content_hash(data: bytes | str) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


class ReadLedger:
    """Content hashes of what the model read, keyed by a file's real path or `notebook#cell_id`."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}
        #: What `changed_since_read` last told of a key, so one edit of the user's is told once.
        self._told: dict[str, str] = {}
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

    def keys_under(self, prefix: str) -> list[str]:
        with self._lock:
            return [key for key in self._seen if key.startswith(prefix)]

    def changed_since_read(self, current: Mapping[str, bytes | str]) -> list[str]:
        """The keys of `current` that were read and whose content differs from that read, each told once per
        content: the kernel note says which cells the user edited since the model read them."""
        changed: list[str] = []
        with self._lock:
            for key, content in current.items():
                seen, now = self._seen.get(key), content_hash(content)
                if seen is not None and seen != now and self._told.get(key) != now:
                    self._told[key] = now
                    changed.append(key)
        return changed

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()
            self._told.clear()
