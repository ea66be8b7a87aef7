"""The conversation of one kernel's agent, kept valid for the Messages API whatever happened in a run.

Append-only, by construction (Anthropic's preserved thinking checks every thinking block sent back against
everything before it, and the prompt cache reads the same prefix):
- `prefix` (the system prompt and the tools, `prefix.Prefix`) is fixed at the conversation's first request and
  sent unchanged; `told` is what was told since (facts, tools), saved with it;
- assistant turns are stored exactly as the API returned them (every block, in order, empty thinking included);
- nothing before the last assistant turn changes. After it is the pending tail — what no response has seen yet
  (a run's request, tool results, an update): it may still be merged or reordered, since no thinking is bound
  to it. `truncate` (rewind) only cuts from the end.
Invariants, so the next request is always accepted:
- every user or system block is valid for the model (`boundary.valid_blocks`: UTF-8 text, real images within
  the limits, no whitespace-only text), checked once, when it is appended;
- roles alternate: a message of the same role as the last one is merged into it; a system message (updates,
  tool changes) follows a user message and is last or followed by the assistant;
- every assistant `tool_use` is answered by a `tool_result` in the next (user) message (`repair` adds
  INTERRUPTED results for any that are missing).
Messages are plain API dicts; the request gets a copy of the tail with `cache_control`, the stored
messages never carry it, so breakpoints do not pile up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..base.result import ToolResult
from .boundary import valid_blocks
from .message_store import Block, Message, MessageStore, as_blocks, message_chars
from .prefix import Prefix, Told
from .request_body import EncodedMessages, encode, masked_value
from .shortening import stub

#: What a pending call is told when the run stopped before it ran (the user interrupted, a limit was hit).
INTERRUPTED_TEXT = "interrupted by the user before it finished; nothing after this point ran"
#: Characters of an older result kept when it is shortened.
STUB_HEAD = 300
#: An image is about 1,600 tokens whatever its base64 size; counted as that many characters x4.
_IMAGE_CHARS = 6_400
_EPHEMERAL = {"type": "ephemeral"}


def interrupted_result(message: str = INTERRUPTED_TEXT) -> ToolResult:
    return ToolResult.error("INTERRUPTED", message)


class Conversation(MessageStore):
    """The messages sent to the model, with the operations the loop needs. Thread-safe for readers."""

    def __init__(self) -> None:
        super().__init__()
        #: The system prompt and tools, fixed at the first request (None until then, and after `reset`).
        self.prefix: Prefix | None = None
        #: What was told after the prefix (facts, available tools, the thinking-binding choice).
        self.told = Told()
        #: The prefix or `told` changed since the session store last saved them.
        self.state_unsaved = False

    # writing

    def _append(self, role: str, blocks: Sequence[Block]) -> None:
        """Append `blocks` as a message of `role`, or into the last message when it has that role. An assistant
        turn is kept exactly as returned; user and system blocks are made valid here, once."""
        if role == "assistant":  # as returned; an empty text block (a cut stream's) carries nothing
            blocks = [b for b in blocks if not (b.get("type") == "text" and b.get("text") == "")]
        else:
            blocks = valid_blocks(list(blocks))
        if not blocks:
            return
        with self._lock:
            messages = self._messages
            if role == "user" and len(messages) >= 2 and messages[-1]["role"] == "system":
                # A system message must be last or followed by the assistant; in the pending tail the new user
                # blocks join the user message before it, and the system message stays last.
                self._extend(len(messages) - 2, blocks)
            elif messages and messages[-1]["role"] == role:
                self._extend(len(messages) - 1, blocks)
            else:
                message: Message = {"role": role, "content": blocks}
                messages.append(message)
                self._sizes.append(message_chars(message))

    def add_user_text(self, text: str, *, attachments: Sequence[Block] = ()) -> None:
        """A request; `attachments` (the kernel-activity note, its figures) follow it in the same message."""
        self._append("user", [{"type": "text", "text": text}, *attachments])

    def add_update(self, blocks: Sequence[Block]) -> None:
        """An update (the session's facts) for the pending user message, right after its tool results — before
        the request it carries, if any. The pending message has been answered by nothing yet, so it may take a
        block in the middle; with no pending user message, a new one."""
        blocks = valid_blocks(list(blocks))
        with self._lock:
            index = next(
                (i for i in range(len(self._messages) - 1, -1, -1) if self._messages[i]["role"] != "system"),
                None,
            )
            if index is None or self._messages[index]["role"] != "user":
                pending = None
            else:
                pending = self._messages[index]
        if pending is None or index is None:
            self._append("user", blocks)
            return
        with self._lock:
            content = as_blocks(pending["content"])
            results = 0
            while results < len(content) and content[results].get("type") == "tool_result":
                results += 1
            pending["content"] = [*content[:results], *blocks, *content[results:]]
            self._sizes[index] = message_chars(pending)
            self._touch(index)

    def add_system(self, blocks: Sequence[Block]) -> None:
        """A mid-conversation system message (tool changes) after the pending user message."""
        with self._lock:
            if not self._messages or self._messages[-1]["role"] == "assistant":
                raise ValueError("a system message must follow a user message")
        self._append("system", blocks)

    def add_assistant(self, blocks: Sequence[Block]) -> None:
        self._append("assistant", blocks)

    def add_tool_results(self, results: Sequence[tuple[str, ToolResult]]) -> None:
        self._append("user", [result.to_block(call_id) for call_id, result in results])

    def add_messages(self, messages: Sequence[Message]) -> None:
        """Append whole messages (a conversation's opening), each by its role."""
        for message in messages:
            self._append(message["role"], as_blocks(message["content"]))

    def has_system_messages(self) -> bool:
        with self._lock:
            return any(m["role"] == "system" for m in self._messages)

    @property
    def ends_with_assistant(self) -> bool:
        with self._lock:
            return bool(self._messages) and self._messages[-1]["role"] == "assistant"

    def fix_prefix(self, prefix: Prefix) -> None:
        """Set the conversation's system prompt and tools (at its first request, or a redeclaration for a model
        that checks no prefix); the tools it declares are the ones the model is told it has."""
        with self._lock:
            if self.prefix is None:
                self.told.tools = {str(t.get("name", "")): t for t in prefix.tools}
            self.prefix = prefix
            self.state_unsaved = True

    def retell(self) -> None:
        """After a compaction replaced the history: what was told since the prefix is gone with it, so the
        facts are told again and the tools are as the prefix declares them."""
        prefix = self.prefix
        declared = prefix.tools if prefix is not None else ()
        self.told.facts = {}
        self.told.tools = {str(t.get("name", "")): t for t in declared if not t.get("defer_loading")}
        self.state_unsaved = True

    def reset(self) -> None:
        self.replace([])
        self.prefix = None
        self.told = Told()
        self.state_unsaved = True

    def restore(self, messages: Sequence[Message], *, prefix: Prefix | None, told: Told) -> None:
        """Continue a saved conversation exactly as it was sent: its messages, prefix and what it had told.
        The store already holds these messages (resume continues in the same chain of files)."""
        self.replace(messages)
        self.prefix = prefix
        self.told = told
        self.state_unsaved = False
        with self._lock:
            self._saved_upto = len(self._messages)

    def replace(self, messages: Sequence[Message]) -> None:
        """Start from `messages` (a resumed session, a compaction summary); the caller makes them valid."""
        with self._lock:
            self._messages = [
                {"role": m["role"], "content": as_blocks(m["content"])}
                if m["role"] == "assistant"
                else {"role": m["role"], "content": valid_blocks(as_blocks(m["content"]))}
                for m in messages
            ]
            self._sizes = [message_chars(m) for m in self._messages]
            self._last_prompt_tokens = None
            self._chars_at_last_prompt = 0
            self._saved_upto = 0
            self._encoded = []
            self.generation += 1

    def take_back(self, start: tuple[int, int], *, generation: int | None = None) -> bool:
        """Cut what no response has seen: back to `start` (a run's request) when nothing after it was answered,
        else to just after the last answer (its calls are then answered "not run"). True if anything was cut.

        `start` is read against the conversation as it is now: one taken before the history was replaced
        (`generation` differs: a compaction) or before it shrank (a rewind) points nowhere, so only what follows
        the last answer is cut, and nothing when no answer is left (the compaction's summary stays)."""
        answered = self.last_assistant_index()
        stale = (generation is not None and generation != self.generation) or start[0] > len(self)
        if stale:
            if answered < 0:
                return False
            cut = (answered + 1, 0)
        else:
            cut = start if answered < start[0] else (answered + 1, 0)
        before = self.position()
        self.truncate(cut)
        if self.position() == before:
            return False
        self.repair()
        return True

    def strip_thinking(self) -> int:
        """Leave every thinking block out, once (the docs' repair when signatures cannot be used); later thinking
        is kept again. Returns how many were removed."""
        removed = 0
        with self._lock:
            for index, message in enumerate(self._messages):
                if message["role"] != "assistant":
                    continue
                blocks = as_blocks(message["content"])
                kept = [b for b in blocks if b.get("type") not in ("thinking", "redacted_thinking")]
                if len(kept) == len(blocks):
                    continue
                removed += len(blocks) - len(kept)
                message["content"] = kept or [{"type": "text", "text": "(reasoning left out)"}]
                self._sizes[index] = message_chars(message)
                self._touch(index)
        return removed

    def take_state(self) -> tuple[dict[str, Any] | None, dict[str, Any]] | None:
        """(the prefix as JSON, what was told as JSON) when either changed since the last call, else None."""
        with self._lock:
            if not self.state_unsaved:
                return None
            self.state_unsaved = False
            prefix = self.prefix.to_json() if self.prefix is not None else None
            return prefix, self.told.to_json()

    # validity

    def unanswered_tool_uses(self) -> list[tuple[int, str]]:
        """(message index, tool_use id) of every tool_use the next message does not answer."""
        missing: list[tuple[int, str]] = []
        with self._lock:
            for i, message in enumerate(self._messages):
                if message["role"] != "assistant":
                    continue
                ids = [b["id"] for b in as_blocks(message["content"]) if b.get("type") == "tool_use"]
                if not ids:
                    continue
                nxt = self._messages[i + 1] if i + 1 < len(self._messages) else None
                answered = {
                    b.get("tool_use_id")
                    for b in (as_blocks(nxt["content"]) if nxt and nxt["role"] == "user" else [])
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
                    content = as_blocks(nxt["content"])
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

    def request_messages(self, *, cache: bool) -> EncodedMessages:
        """The messages to send, with their JSON text (each stored message encoded once); with `cache`, the latest
        user or system message's last block is a cache breakpoint."""
        with self._lock:
            messages = list(self._messages)
            texts, scanner, remasked_sent = self._encoded_texts(len(messages))
        if cache:
            for i in range(len(messages) - 1, -1, -1):
                if messages[i]["role"] != "assistant":
                    blocks = as_blocks(messages[i]["content"])
                    if blocks:
                        tail = {**blocks[-1], "cache_control": _EPHEMERAL}
                        messages[i] = {**messages[i], "content": [*blocks[:-1], tail]}
                        texts[i] = encode(masked_value(scanner, messages[i]))
                    break
        return EncodedMessages(messages, f"[{','.join(texts)}]", remasked_sent=remasked_sent)

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
                and any(b.get("type") == "tool_result" for b in as_blocks(m["content"]))
            ]
            candidates = holders[:-keep_last] if keep_last > 0 else holders
            for index in candidates:
                if sum(self._sizes) <= target_chars:
                    break
                message = self._messages[index]
                content = as_blocks(message["content"])
                new_content = [stub(b) if b.get("type") == "tool_result" else b for b in content]
                changed = sum(1 for old, new in zip(content, new_content, strict=True) if old is not new)
                if changed:
                    message["content"] = new_content
                    self._sizes[index] = message_chars(message)
                    self._touch(index)
                    shortened += changed
        return shortened
