"""Retries of a model request: bounded and visible, where the SDK's were silent and unbounded.

The SDK honours any `retry-after` (a 429 asking for 90 s was waited for silently, three times). Here the
SDK's own retries are off and this loop retries what it would — a 408, 409, 429, 5xx or 529 answer, a
connection that failed or timed out, unless the server says `x-should-retry: false` — with:

- the server's `retry-after-ms` / `retry-after` (seconds or an HTTP date) when it gives one, else the SDK's
  backoff (0.5 s doubling to 8 s, with jitter);
- a cap: a server asking for longer than `max_wait` (the `retry_wait_max` setting) ends the run at once
  with a message saying when to run again, instead of a wait nobody sees;
- a `RetryWait` event before each wait, which the cell shows as a countdown — but for a connection that could
  not be made: those few seconds of backoff are retried quietly, and if they all fail the run's one error line
  says where it could not connect and what to do (three "retrying" lines before it only hid it);
- waits that an Interrupt ends (a plain `asyncio.sleep`).
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .events import RetryWait

T = TypeVar("T")

#: The retry reason of a connection that failed (not timed out): retried without a countdown in the cell.
CONNECTION_FAILED = "the connection failed"

_INITIAL_DELAY = 0.5
_MAX_DELAY = 8.0


class RetryTooLong(Exception):
    """The server asked for a longer wait than the cap; the message says how long and when to run again."""

    def __init__(self, *, reason: str, wait: float, cap: float) -> None:
        when = time.strftime("%H:%M:%S", time.localtime(time.time() + wait))
        super().__init__(
            f"{reason}: the API asks to wait {wait:.3g} s before trying again (retry-after), longer than "
            f"retry_wait_max ({cap:g} s); run the cell again after {when}, or raise "
            "`%config AgentMagics.retry_wait_max`"
        )
        self.reason = reason
        self.wait = wait


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    max_retries: int
    #: The longest wait a server may ask for (seconds); longer asks end the run.
    max_wait: float


def _headers(exc: BaseException) -> Any:
    response = getattr(exc, "response", None)
    return getattr(response, "headers", None)


def retry_reason(exc: BaseException) -> str | None:
    """Why a retry may work ("rate limited (429)", "the connection timed out"), or None when it would not."""
    import anthropic

    if isinstance(exc, anthropic.APITimeoutError):
        return "the connection timed out"
    if isinstance(exc, anthropic.APIConnectionError):
        return CONNECTION_FAILED
    if not isinstance(exc, anthropic.APIStatusError):
        return None
    headers = _headers(exc)
    should = headers.get("x-should-retry") if headers is not None else None
    if should == "false":
        return None
    status = exc.status_code
    if status == 429:
        return "rate limited (429)"
    if status == 529:
        return "overloaded (529)"
    if status >= 500 or status in (408, 409) or should == "true":
        return f"the API failed ({status})"
    return None


def retry_after(exc: BaseException) -> float | None:
    """The wait the server asked for, in seconds (`retry-after-ms`, `retry-after` seconds or HTTP date)."""
    headers = _headers(exc)
    if headers is None:
        return None
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(float(milliseconds) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        parsed = email.utils.parsedate_tz(value)
        return max(float(email.utils.mktime_tz(parsed)) - time.time(), 0.0) if parsed else None


def backoff(retry: int) -> float:
    """The SDK's backoff before retry number `retry` (0-based): 0.5 s doubling to 8 s, minus up to 25% jitter."""
    return min(_INITIAL_DELAY * 2.0**retry, _MAX_DELAY) * (1 - 0.25 * random.random())


async def with_retries(
    attempt: Callable[[], Awaitable[T]], *, policy: RetryPolicy, on_wait: Callable[[RetryWait], None]
) -> T:
    """`await attempt()`, retried as the module docstring says; the last error is raised as it came."""
    retries = 0
    while True:
        try:
            return await attempt()
        except Exception as exc:
            reason = retry_reason(exc)
            if reason is None or retries >= policy.max_retries:
                raise
            asked = retry_after(exc)
            if asked is not None and asked > policy.max_wait:
                raise RetryTooLong(reason=reason, wait=asked, cap=policy.max_wait) from exc
            wait = asked if asked is not None else backoff(retries)
            retries += 1
            if reason != CONNECTION_FAILED:
                on_wait(
                    RetryWait(
                        reason=reason,
                        seconds=wait,
                        retry=retries,
                        retries=policy.max_retries,
                        asked=asked is not None,
                    )
                )
            await asyncio.sleep(wait)
