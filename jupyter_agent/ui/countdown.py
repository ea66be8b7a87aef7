"""The line a retry wait shows in the cell: counting down while it waits, then saying it retried.

A 429 with `retry-after: 30` used to be a silent half minute; now the cell reads
`⏳ rate limited (429): the API asked to wait 30 s; retrying in 27 s (retry 1 of 3)`, updated each second,
and `… retried after 30 s` once the next try started.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ..agent.events import RetryWait
from .html import esc, legible
from .publish import Bundle, Publisher


def _bundle(text: str) -> Bundle:
    return {
        "text/plain": text,
        "text/html": f'<div style="color:{legible("warn")};font-size:12px;margin:3px 0;">{esc(text)}</div>',
    }


@dataclass
class Countdown:
    """At most one wait is counting down at a time; `tick` refreshes it, `end` settles it."""

    publisher: Publisher
    _wait: RetryWait | None = None
    _display_id: str = ""
    _deadline: float = 0.0
    _shown: int = -1

    def start(self, wait: RetryWait) -> None:
        self.end()
        self._wait = wait
        self._deadline = time.monotonic() + wait.seconds
        self._shown = -1
        self._display_id = self.publisher.show(_bundle(self._line()))

    def tick(self) -> None:
        if self._wait is not None and self._left() != self._shown:
            self.publisher.update(self._display_id, _bundle(self._line()))

    def end(self) -> None:
        """The wait is over (the next event arrived): the line says it retried."""
        wait, self._wait = self._wait, None
        if wait is None:
            return
        self.publisher.update(
            self._display_id,
            _bundle(f"⏳ {wait.reason}: retried after {wait.seconds:.3g} s ({_which(wait)})"),
            final=True,
        )

    def _left(self) -> int:
        return max(math.ceil(self._deadline - time.monotonic()), 0)

    def _line(self) -> str:
        assert self._wait is not None
        self._shown = self._left()
        asked = f"the API asked to wait {self._wait.seconds:.3g} s; " if self._wait.asked else ""
        return f"⏳ {self._wait.reason}: {asked}retrying in {self._shown} s ({_which(self._wait)})"


def _which(wait: RetryWait) -> str:
    return f"retry {wait.retry} of {wait.retries}"
