"""Prompt-cache accounting as the API reports it, so a test can measure how much of a conversation is read from cache.

Per the docs ("Prompt caching"): the prompt is read tools → system → messages; writes happen only at the blocks
that carry `cache_control` (up to 4, a top-level `cache_control` marks the last block), each for its TTL (5 minutes,
or `"ttl": "1h"`), and only when the prefix up to there is at least the model's minimum cacheable length. A request
reads the longest earlier prefix it repeats: for each breakpoint the API looks at up to 20 positions (the breakpoint
itself first). Changing the thinking settings, the effort or `tool_choice` invalidates the messages part. Entries
are per model.

Usage: `cache_read_input_tokens` is the prefix read, `cache_creation_input_tokens` the tokens from there up to the
last breakpoint that can be written, `input_tokens` the rest. Tokens are the server's estimate (one per 4 characters
of each block's JSON), not a real tokenizer.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...base.json_values import is_object
from .canonical import Item, block_tokens, canonical_json, digest, prompt_items
from .models import ServedModel

LOOKBACK = 20
_TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}


@dataclass(frozen=True)
class CacheUsage:
    input_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int
    ephemeral_5m_input_tokens: int
    ephemeral_1h_input_tokens: int


def _ttl(marker: Any) -> str:
    return "1h" if is_object(marker) and marker.get("ttl") == "1h" else "5m"


def _message_settings(body: dict[str, Any]) -> str:
    """What the docs say invalidates the messages part of the cache: thinking settings, effort, `tool_choice`."""
    thinking = body.get("thinking")
    if is_object(thinking):
        thinking = {k: v for k, v in thinking.items() if k != "block_binding"}
    output = body.get("output_config")
    effort = output.get("effort") if is_object(output) else None
    return canonical_json({"thinking": thinking, "effort": effort, "tool_choice": body.get("tool_choice")})


def breakpoints(body: dict[str, Any], items: list[Item]) -> list[tuple[int, str]]:
    """(item index, TTL) of every cache breakpoint, in prompt order; the top-level one marks the last item."""
    marks = [(n, _ttl(_marker(it.block))) for n, it in enumerate(items) if _marked(it)]
    if "cache_control" in body and items:
        marks.append((len(items) - 1, _ttl(body["cache_control"])))
    return marks


def _marked(item: Item) -> bool:
    """A block carrying `cache_control`, on itself or, for a `tool_addition`, inside its definition (a message's
    own fields are not a block)."""
    if (item.section == "messages" and item.index is None) or not is_object(item.block):
        return False
    return _marker(item.block) is not None


def _marker(block: dict[str, Any]) -> Any:
    tool = block.get("tool")
    definition = tool.get("definition") if is_object(tool) else None
    inner = definition.get("cache_control") if is_object(definition) else None
    return block.get("cache_control") if block.get("cache_control") is not None else inner


class PromptCache:
    """The entries earlier requests wrote: prefix digest → expiry."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._entries: dict[str, float] = {}
        self._lock = threading.Lock()

    def account(self, body: dict[str, Any], row: ServedModel, dropped: frozenset[str]) -> CacheUsage:
        """The usage of `body` on `row` (blocks at `dropped` paths left out), and the writes it makes."""
        items = [it for it in prompt_items(body) if it.path not in dropped]
        running = digest("cache", row.id)
        digests: list[str] = []
        totals: list[int] = []
        total = 0
        section = ""
        for item in items:
            if item.section == "messages" and section != "messages":
                running = digest(running, _message_settings(body))
            section = item.section
            running = digest(running, item.key)
            total += block_tokens(item.block)
            digests.append(running)
            totals.append(total)
        marks = breakpoints(body, items)
        with self._lock:
            now = self._clock()
            read_at = self._longest_hit(marks, digests, now)
            read = totals[read_at] if read_at is not None else 0
            writable = [(n, ttl) for n, ttl in marks if totals[n] >= row.min_cacheable_tokens]
            created = {"5m": 0, "1h": 0}
            reached = read
            for n, ttl in writable:
                if totals[n] > reached:
                    created[ttl] += totals[n] - reached
                    reached = totals[n]
                self._entries[digests[n]] = max(self._entries.get(digests[n], 0.0), now + _TTL_SECONDS[ttl])
        creation = created["5m"] + created["1h"]
        return CacheUsage(
            input_tokens=max(0, total - read - creation),
            cache_creation_input_tokens=creation,
            cache_read_input_tokens=read,
            ephemeral_5m_input_tokens=created["5m"],
            ephemeral_1h_input_tokens=created["1h"],
        )

    def _longest_hit(self, marks: list[tuple[int, str]], digests: list[str], now: float) -> int | None:
        best: int | None = None
        for n, _ in marks:
            for position in range(n, max(-1, n - LOOKBACK), -1):
                expiry = self._entries.get(digests[position])
                if expiry is not None and expiry > now:
                    best = position if best is None else max(best, position)
                    self._entries[digests[position]] = max(
                        expiry, now + _TTL_SECONDS["5m"]
                    )  # a read refreshes it
                    break
        return best
