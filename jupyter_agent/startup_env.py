"""The environment this process started with (Linux: `/proc/self/environ`): what a restarted kernel, or the fresh
kernel `VerifyNotebook` starts, gets — secrets the user has since removed from `os.environ` included, so the
secret registry masks them too (`masking.SecretRegistry.secrets`).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path


def parse_environ(raw: bytes) -> dict[str, str] | None:
    """`NAME=value` items separated by NULs; None when an item is not one — the area was overwritten (a process
    title set with setproctitle is written over the start-up environment), so it says nothing reliable."""
    environment: dict[str, str] = {}
    for item in raw.split(b"\0"):
        if not item:
            continue
        key, equals, value = os.fsdecode(item).partition("=")
        if not key or not equals:
            return None
        environment[key] = value
    return environment


@lru_cache(maxsize=1)
def startup_environ() -> dict[str, str] | None:
    """The start-up environment, read once (it does not change); None where it cannot be read or was overwritten."""
    try:
        raw = Path("/proc/self/environ").read_bytes()
    except OSError:
        return None
    return parse_environ(raw)


def startup_environment() -> dict[str, str]:
    """The start-up environment; the current one where that cannot be known (not Linux, overwritten)."""
    started = startup_environ()
    return dict(os.environ) if started is None else dict(started)
