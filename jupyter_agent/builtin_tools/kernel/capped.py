"""Run user-defined code (a `__repr__`, a property) with a time cap, so a hanging object can't hang the agent.

Python cannot stop a thread, so the call runs in a daemon thread and we stop *waiting* for it after the cap;
a call that never returns leaves that thread behind (asleep or spinning) until the kernel exits. That is the
price of never blocking on code we don't control; callers say so to the model ("did not finish in 2 s").
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class Capped(Generic[T]):
    """The outcome of a capped call: a value, the exception it raised, or neither because it timed out."""

    value: T | None = None
    error: BaseException | None = None
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return not self.timed_out and self.error is None


def call_capped(fn: Callable[[], T], seconds: float) -> Capped[T]:
    """`fn()` in a daemon thread; wait at most `seconds` for it."""
    box: dict[str, object] = {}
    done = threading.Event()

    def runner() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # reported, never raised into the helper thread's void
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=runner, name="jupyter-agent-capped", daemon=True).start()
    if not done.wait(max(seconds, 0.0)):
        return Capped(timed_out=True)
    if "error" in box:
        error = box["error"]
        assert isinstance(error, BaseException)
        return Capped(error=error)
    return Capped(value=cast(T, box.get("value")))


class Deadline:
    """A time budget shared by several capped calls: each gets `per_call` seconds, all of them `total`."""

    def __init__(self, *, per_call: float, total: float) -> None:
        self.per_call = per_call
        self._end = time.monotonic() + total

    def remaining(self) -> float:
        return max(self._end - time.monotonic(), 0.0)

    def expired(self) -> bool:
        return self.remaining() <= 0.0

    def call(self, fn: Callable[[], T]) -> Capped[T]:
        if self.expired():
            return Capped(timed_out=True)
        return call_capped(fn, min(self.per_call, self.remaining()))
