"""The conversation of one kernel's agent, kept valid for the Messages API whatever happened in a run.

Invariants, so the next request is always accepted:
- every block is valid for the model (`boundary.valid_for_model`: UTF-8 text, real images), so what is
  stored and saved can always be sent and encoded;
- roles alternate: a message of the same role as the last one is merged into it;
- every assistant `tool_use` is answered by a `tool_result` in the next (user) message (`repair` adds
  INTERRUPTED results for any that are missing);
- no empty text blocks.
Messages are plain API dicts; the request gets a copy of the tail with `cache_control`, the stored
messages never carry it, so breakpoints do not pile up.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from ..base.json_values import is_object
from ..base.result import ToolResult
from .boundary import valid_for_model

Message = dict[str, Any]
Block = dict[str, Any]

#: What a pending call is told when the run stopped before it ran (the user interrupted, a limit was hit).
INTERRUPTED_TEXT = "interrupted by the user before it finished; nothing after this point ran"
#: Characters of an older result kept when it is shortened.
_STUB_HEAD = 300
#: An image is about 1,600 tokens whatever its base64 size; counted as that many characters x4.
_IMAGE_CHARS = 6_400
_EPHEMERAL = {"type": "ephemeral"}


def interrupted_result(message: str = INTERRUPTED_TEXT) -> ToolResult:
    return ToolResult.error("INTERRUPTED", message)


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


class Conversation:
    """The messages sent to the model, with the operations the loop needs. Thread-safe for readers."""

    def __init__(self) -> None:
        self._messages: list[Message] = []
        self._sizes: list[int] = []
        self._lock = threading.RLock()
        #: The real prompt size of the last request (from usage) and the conversation's size then.
        self._last_prompt_tokens: int | None = None
        self._chars_at_last_prompt = 0
        #: Messages before this index are unchanged since the last `take_unsaved` (the session store's cursor).
        self._saved_upto = 0
        #: Counts `replace` calls (a compaction, a reset, a resume): a `position` taken in an older generation
        #: no longer points into these messages, so a rewind to it is refused.
        self.generation = 0

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

    def note_prompt_size(self, tokens: int) -> None:
        """Record the prompt size the API reported for the conversation as it is now."""
        self._last_prompt_tokens = tokens
        self._chars_at_last_prompt = self.chars()

    def estimated_prompt_tokens(self, fixed_chars: int) -> int:
        """The next prompt's size: the last real size plus what changed since (chars/4), never below chars/4."""
        chars = self.chars()
        by_chars = (chars + fixed_chars) // 4
        if self._last_prompt_tokens is None:
            return by_chars
        return max(by_chars, self._last_prompt_tokens + (chars - self._chars_at_last_prompt) // 4)

    # writing

    def _append(self, role: str, blocks: Sequence[Block]) -> None:
        blocks = [valid_for_model(b) for b in blocks if not (b.get("type") == "text" and not b.get("text"))]
        if not blocks:
            return
        with self._lock:
            if self._messages and self._messages[-1]["role"] == role:
                last = self._messages[-1]
                last["content"] = [*_as_blocks(last["content"]), *blocks]
                self._sizes[-1] = message_chars(last)
                self._touch(len(self._messages) - 1)
            else:
                message: Message = {"role": role, "content": list(blocks)}
                self._messages.append(message)
                self._sizes.append(message_chars(message))

    def add_user_text(self, text: str, *, attachments: Sequence[Block] = ()) -> None:
        """A request; `attachments` (the kernel-activity note, its figures) follow it in the same message."""
        self._append("user", [{"type": "text", "text": text}, *attachments])

    def add_assistant(self, blocks: Sequence[Block]) -> None:
        self._append("assistant", blocks)

    def add_tool_results(self, results: Sequence[tuple[str, ToolResult]]) -> None:
        self._append("user", [result.to_block(call_id) for call_id, result in results])

    def reset(self) -> None:
        self.replace([])

    def replace(self, messages: Sequence[Message]) -> None:
        """Start from `messages` (a resumed session, a compaction summary); the caller makes them valid."""
        with self._lock:
            self._messages = [{"role": m["role"], "content": valid_for_model(m["content"])} for m in messages]
            self._sizes = [message_chars(m) for m in self._messages]
            self._last_prompt_tokens = None
            self._chars_at_last_prompt = 0
            self._saved_upto = 0
            self.generation += 1

    def position(self) -> tuple[int, int]:
        """Where the next request goes: (messages, blocks of the last one). A request merges into a last user
        message (a run that stopped after its tool results), so both are needed to take it back out."""
        with self._lock:
            last = _as_blocks(self._messages[-1]["content"]) if self._messages else []
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
                content = _as_blocks(last["content"])
                if len(content) > blocks:
                    last["content"] = content[:blocks]
                    self._sizes[-1] = message_chars(last)
                    self._touch(length - 1)
            self._last_prompt_tokens = None
            self._chars_at_last_prompt = 0
            return dropped

    # the session store's cursor

    def _touch(self, index: int) -> None:
        self._saved_upto = min(self._saved_upto, index)

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

    # validity

    def unanswered_tool_uses(self) -> list[tuple[int, str]]:
        """(message index, tool_use id) of every tool_use the next message does not answer."""
        missing: list[tuple[int, str]] = []
        with self._lock:
            for i, message in enumerate(self._messages):
                if message["role"] != "assistant":
                    continue
                ids = [b["id"] for b in _as_blocks(message["content"]) if b.get("type") == "tool_use"]
                if not ids:
                    continue
                nxt = self._messages[i + 1] if i + 1 < len(self._messages) else None
                answered = {
                    b.get("tool_use_id")
                    for b in (_as_blocks(nxt["content"]) if nxt and nxt["role"] == "user" else [])
                    if b.get("type") == "tool_result"
                }
                missing += [(i, call_id) for call_id in ids if call_id not in answered]
        return missing

    def repair(self) -> int:
        """Answer every unanswered tool_use with an INTERRUPTED result; returns how many were added."""
        missing = self.unanswered_tool_uses()
        with self._lock:
            for index, call_id in reversed(missing):
                block = interrupted_result().to_block(call_id)
                nxt = self._messages[index + 1] if index + 1 < len(self._messages) else None
                if nxt is not None and nxt["role"] == "user":
                    content = _as_blocks(nxt["content"])
                    results = [b for b in content if b.get("type") == "tool_result"]
                    others = [b for b in content if b.get("type") != "tool_result"]
                    nxt["content"] = [*results, block, *others]  # tool_result blocks come first
                    self._sizes[index + 1] = message_chars(nxt)
                else:
                    message: Message = {"role": "user", "content": [block]}
                    self._messages.insert(index + 1, message)
                    self._sizes.insert(index + 1, message_chars(message))
                self._touch(index + 1)
        return len(missing)

    # the request

    def request_messages(self, *, cache: bool) -> list[Message]:
        """The messages to send; with `cache`, the latest user message's last block is a cache breakpoint."""
        with self._lock:
            messages = list(self._messages)
        if not cache:
            return messages
        for i in range(len(messages) - 1, -1, -1):
            if messages[i]["role"] == "user":
                blocks = _as_blocks(messages[i]["content"])
                if blocks:
                    tail = {**blocks[-1], "cache_control": _EPHEMERAL}
                    messages[i] = {**messages[i], "content": [*blocks[:-1], tail]}
                break
        return messages

    # the context budget

    def shorten_old_results(self, *, target_chars: int, keep_last: int = 1) -> int:
        """Replace older tool results with a stub, oldest first, until the conversation fits `target_chars`.

        The `keep_last` most recent messages holding tool results are never shortened: the model is
        working with them. Returns the number of results shortened.
        """
        shortened = 0
        with self._lock:
            holders = [
                i
                for i, m in enumerate(self._messages)
                if m["role"] == "user"
                and any(b.get("type") == "tool_result" for b in _as_blocks(m["content"]))
            ]
            candidates = holders[:-keep_last] if keep_last > 0 else holders
            for index in candidates:
                if sum(self._sizes) <= target_chars:
                    break
                message = self._messages[index]
                content = _as_blocks(message["content"])
                new_content = [_stub(b) if b.get("type") == "tool_result" else b for b in content]
                changed = sum(1 for old, new in zip(content, new_content, strict=True) if old is not new)
                if changed:
                    message["content"] = new_content
                    self._sizes[index] = message_chars(message)
                    self._touch(index)
                    shortened += changed
        return shortened


def _as_blocks(content: Any) -> list[Block]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content)


def _result_text(block: Block) -> str:
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if is_object(b) and b.get("type") == "text")


def shortened_text(original: str, images: int = 0) -> str:
    head = original[:_STUB_HEAD]
    removed = len(original) - len(head)
    pictures = f" and {images} image(s)" if images else ""
    return (
        f"[older tool result shortened to save context: {removed} characters{pictures} removed; "
        f"run the tool again if you need it. It began: {head}]"
    )


def _stub(block: Block) -> Block:
    """The tool_result with its content cut to a short stub that says so (already-short results stay)."""
    text = _result_text(block)
    content = block.get("content", "")
    images = 0 if isinstance(content, str) else sum(1 for b in content if b.get("type") == "image")
    if (len(text) <= _STUB_HEAD * 2 and not images) or text.startswith("[older tool result shortened"):
        return block
    return {**block, "content": [{"type": "text", "text": shortened_text(text, images)}]}
