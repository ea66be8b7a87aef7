"""The conversation's messages as stored: in order, with their sizes and the session store's cursor.

The API's rules for what may be appended are `conversation.Conversation`'s; this is the list underneath them,
thread-safe for readers (`%agent history` reads from the main thread while the worker appends).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

from ..base.json_values import is_object
from ..masking import REGISTRY
from ..secret_scan import SecretScanner
from .request_body import encode, masked_value

Message = dict[str, Any]
Block = dict[str, Any]

#: An image is about 1,600 tokens whatever its base64 size; counted as that many characters x4.
_IMAGE_CHARS = 6_400


def block_chars(block: Any) -> int:
    """A cheap size of a content block for the chars/4 token estimate (images at their token cost)."""
    if not is_object(block):
        return len(str(block))
    kind = block.get("type")
    if kind == "text":
        return len(block.get("text", ""))
    if kind == "image":
        return _IMAGE_CHARS
    if kind == "tool_result":
        content = block.get("content", "")
        if isinstance(content, str):
            return len(content) + 20
        return sum(block_chars(b) for b in content) + 20
    if kind == "tool_use":
        return len(json.dumps(block.get("input", {}), ensure_ascii=False)) + len(block.get("name", "")) + 30
    if kind == "thinking":
        return len(block.get("thinking", ""))
    return len(json.dumps(block, ensure_ascii=False, default=str))


def message_chars(message: Message) -> int:
    content = message["content"]
    if isinstance(content, str):
        return len(content) + 10
    return sum(block_chars(b) for b in content) + 10


class MessageStore:
    """The ordered messages, their sizes (for the chars/4 estimate) and what the session store has saved."""

    def __init__(self) -> None:
        self._messages: list[Message] = []
        self._sizes: list[int] = []
        self._lock = threading.RLock()
        #: The real prompt size of the last request (from usage) and the conversation's size then.
        self._last_prompt_tokens: int | None = None
        self._chars_at_last_prompt = 0
        #: Messages before this index are unchanged since the last `take_unsaved` (the session store's cursor).
        self._saved_upto = 0
        #: The JSON text of the first messages, kept for the next request (`request_body`): a change at an index
        #: drops the text from there on (`_touch`), so a request encodes only what is new or changed.
        self._encoded: list[str] = []
        #: The scanner the kept texts were masked with (a new one means the secrets changed).
        self._masked_with: SecretScanner | None = None
        #: Counts `replace` calls (a compaction, a reset, a resume): a `position` taken in an older generation
        #: no longer points into these messages, so a rewind to it is refused.
        self.generation: int = 0

    # reading

    @property
    def messages(self) -> list[Message]:
        """A shallow copy, safe to read from another thread (`%agent history`)."""
        with self._lock:
            return list(self._messages)

    def __len__(self) -> int:
        return len(self._messages)

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def chars(self) -> int:
        return sum(self._sizes)

    def estimated_tokens(self) -> int:
        return self.chars() // 4

    def note_prompt_size(self, tokens: int | None) -> None:
        """Record the prompt size the API reported for the conversation as it is now (None: it reported none,
        e.g. a turn's usage summed over server-side iterations; the size is counted from the characters)."""
        self._last_prompt_tokens = tokens
        self._chars_at_last_prompt = self.chars()

    def estimated_prompt_tokens(self, fixed_chars: int) -> int:
        """The next prompt's size: the last real size plus what changed since (chars/4), never below chars/4."""
        chars = self.chars()
        by_chars = (chars + fixed_chars) // 4
        if self._last_prompt_tokens is None:
            return by_chars
        return max(by_chars, self._last_prompt_tokens + (chars - self._chars_at_last_prompt) // 4)

    def _extend(self, index: int, blocks: list[Block]) -> None:
        message = self._messages[index]
        message["content"] = [*as_blocks(message["content"]), *blocks]
        self._sizes[index] = message_chars(message)
        self._touch(index)

    def position(self) -> tuple[int, int]:
        """Where the next request goes: (messages, blocks of the last one). A request merges into a last user
        message (a run that stopped after its tool results), so both are needed to take it back out."""
        with self._lock:
            last = as_blocks(self._messages[-1]["content"]) if self._messages else []
            return len(self._messages), len(last)

    def truncate(self, position: tuple[int, int]) -> int:
        """Go back to `position` (`%agent rewind`): what was added since is dropped, and the store's cursor
        moves back so the next save replays the cut. Returns how many messages were dropped; the caller
        `repair`s (a cut can leave a tool_use unanswered only in a damaged conversation)."""
        length, blocks = position
        with self._lock:
            if length > len(self._messages):
                raise ValueError(
                    f"position {length} is past the conversation's {len(self._messages)} messages"
                )
            dropped = len(self._messages) - length
            del self._messages[length:]
            del self._sizes[length:]
            self._touch(length)
            if length and blocks:
                last = self._messages[-1]
                content = as_blocks(last["content"])
                if len(content) > blocks:
                    last["content"] = content[:blocks]
                    self._sizes[-1] = message_chars(last)
                    self._touch(length - 1)
            self._last_prompt_tokens = None
            self._chars_at_last_prompt = 0
            return dropped

    def last_assistant_index(self) -> int:
        """The index of the last assistant message (-1: none): everything after it is the pending tail."""
        with self._lock:
            for index in range(len(self._messages) - 1, -1, -1):
                if self._messages[index]["role"] == "assistant":
                    return index
        return -1

    # the session store's cursor

    def _touch(self, index: int) -> None:
        """Messages from `index` on changed: unsaved again, and their JSON text is stale."""
        self._saved_upto = min(self._saved_upto, index)
        del self._encoded[index:]

    def _encoded_texts(self, count: int) -> tuple[list[str], SecretScanner, bool]:
        """The masked JSON text of the first `count` messages, the scanner that masked them, and whether masking
        with the secrets known now changed a text an earlier request sent (with the lock held). Messages not
        encoded since they last changed are encoded now; when the secrets changed, every kept text is masked
        again."""
        scanner = REGISTRY.scanner()
        remasked_sent = False
        if scanner is not self._masked_with:
            sent, self._encoded = self._encoded, []
            self._masked_with = scanner
            self._extend_encoded(scanner, len(sent))
            remasked_sent = self._encoded != sent
        self._extend_encoded(scanner, count)
        return self._encoded[:count], scanner, remasked_sent

    def _extend_encoded(self, scanner: SecretScanner, count: int) -> None:
        start = len(self._encoded)
        self._encoded.extend(encode(masked_value(scanner, m)) for m in self._messages[start:count])

    def mark_unsaved(self, index: int) -> None:
        """Messages from `index` on count as changed again (a write of them failed)."""
        with self._lock:
            self._touch(index)

    def take_unsaved(self) -> tuple[int, list[Message]]:
        """(start, messages[start:]) changed since the last call: the store replays them over its copy."""
        with self._lock:
            start = min(self._saved_upto, len(self._messages))
            changed = self._messages[start:]
            self._saved_upto = len(self._messages)
            return start, changed


def as_blocks(content: Any) -> list[Block]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content)
