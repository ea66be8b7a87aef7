"""Compaction: when the conversation nears the context window, the model summarises it and work goes on from that.

The model is asked — through the same client, with the same system prompt and tools, so the cached prefix is
read rather than written — for a summary of what was asked, what was decided, which files and cells were touched
and what is still open. The conversation then starts again from one user message holding that summary (and,
after a fresh request, the request itself): the "simple compaction" Anthropic's preserved-thinking docs
recommend. No earlier turn is kept behind the summary, so no thinking block is sent with a prefix it was not
made with, and the prefix (system prompt, tools) is never touched. The conversation's opening (the repository's
files as tool results, which hold no thinking) comes first again, and what the model was told since the prefix
(the session's facts, tool changes) is told again in the new history.

The summary request must itself fit the window: when the conversation is larger than the model can read (a
kernel killed in the middle of a huge Write leaves it in a call's input), its thinking blocks are left out (which
the prefix check allows) and its largest blocks are cut, largest first, until it fits; the compaction says how
much was cut.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .api_errors import describe_api_error
from .client import ModelClient, without_unsupported
from .config import AgentConfig
from .conversation import Block, Conversation, Message, message_chars
from .events import Usage
from .stream import TurnAssembler

#: The instruction appended to the conversation to get the summary. Pinned by a snapshot test.
SUMMARY_INSTRUCTION = """\
[Context limit] The conversation is about to exceed the context window. Do not call any tool. Write a \
summary that lets you continue the work without the conversation above, in these sections:
1. Requests: everything the user asked, in their words where it matters, and what is being worked on now.
2. Decisions: what was decided or learnt, and why (findings, chosen approaches, rejected ones).
3. Files and cells: every file and notebook cell read, created or changed, with what changed (paths, cell ids).
4. Errors: errors met and how they were fixed.
5. Open items: the todo list, what remains and the very next step.
Be specific and complete; quote short code or values that will be needed."""

#: How the summary opens the compacted conversation. Pinned by a snapshot test.
SUMMARY_PREFIX = "[This conversation was compacted to fit the context window. Summary of everything before this point:]\n\n"

#: Output tokens allowed for the summary.
SUMMARY_MAX_TOKENS = 8_192


class CompactionFailed(Exception):
    """The summary could not be had; the message says why (the conversation is unchanged)."""


#: Room kept in the window for the summary's own answer, and for the estimate's error.
_FIT_SHARE = 0.8
_THINKING = ("thinking", "redacted_thinking")


@dataclass(frozen=True, kw_only=True)
class Compaction:
    summary: str
    usage: Usage
    tokens_before: int
    messages_before: int
    #: Characters the model could not read for the summary (cut to fit the window); 0 when none were.
    cut_chars: int = 0


def summary_request(
    params: dict[str, Any], *, window_tokens: int | None = None
) -> tuple[dict[str, Any], int]:
    """The request for the summary: the run's own request with the instruction appended and no tool use; cut to
    fit `window_tokens` when it is given and the conversation is larger. Returns it and the characters cut."""
    messages: list[Message] = list(params["messages"])
    cut = 0
    fixed = len(json.dumps(params.get("system", ""))) + len(json.dumps(params.get("tools", [])))
    if window_tokens is not None:
        limit = int(window_tokens * _FIT_SHARE * 4) - fixed
        if sum(message_chars(m) for m in messages) > limit:
            messages, cut = fitted(messages, max(limit, 0))
    instruction: Block = {"type": "text", "text": SUMMARY_INSTRUCTION}
    if messages and messages[-1]["role"] == "user":
        last = messages[-1]
        content = last["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        messages[-1] = {**last, "content": [*blocks, instruction]}
    else:
        messages.append({"role": "user", "content": [instruction]})
    # A budget is left out (the summary needs none); adaptive thinking stays as the model's default.
    thinking = params.get("thinking")
    dropped = (
        ("messages",) if thinking is None or thinking.get("type") != "enabled" else ("thinking", "messages")
    )
    summary = {k: v for k, v in params.items() if k not in dropped}
    summary["messages"] = messages
    summary["max_tokens"] = min(int(params["max_tokens"]), SUMMARY_MAX_TOKENS)
    if "tools" in params:
        summary["tool_choice"] = {"type": "none"}
    return summary, cut


def fitted(messages: list[Message], limit: int) -> tuple[list[Message], int]:
    """`messages` within `limit` characters: without thinking blocks (leaving all out passes the prefix check),
    then with their largest blocks cut, largest first. Returns them and the characters cut."""
    out: list[Message] = [
        {**m, "content": [b for b in _blocks(m) if b.get("type") not in _THINKING] or _placeholder(m)}
        for m in messages
    ]
    sizes = sorted(
        ((_size(block), i, j) for i, m in enumerate(out) for j, block in enumerate(m["content"])),
        reverse=True,
    )
    total = sum(message_chars(m) for m in out)
    cut = 0
    for size, i, j in sizes:
        if total <= limit:
            break
        block = out[i]["content"][j]
        small = _cut_block(block, size)
        saved = size - _size(small)
        if saved <= 0:
            continue
        out[i] = {**out[i], "content": [*out[i]["content"][:j], small, *out[i]["content"][j + 1 :]]}
        total -= saved
        cut += saved
    return out, cut


def _blocks(message: Message) -> list[Block]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _placeholder(message: Message) -> list[Block]:
    return [{"type": "text", "text": "[thinking left out]"}] if message["role"] == "assistant" else []


def _size(block: Block) -> int:
    return len(json.dumps(block, ensure_ascii=False))


def _cut_block(block: Block, size: int) -> Block:
    """The block with its bulk replaced by a line saying how much was cut (its id and kind kept, so pairs hold)."""
    note = f"[{size} characters cut: too large to summarise]"
    kind = block.get("type")
    if kind == "tool_use":
        return {**block, "input": {"note": note}}
    if kind == "tool_result":
        return {**block, "content": [{"type": "text", "text": note}]}
    if kind in ("text", "image", "document"):
        return {"type": "text", "text": note}
    return block


async def summarize(
    client: ModelClient, config: AgentConfig, params: dict[str, Any]
) -> tuple[str, Usage, int]:
    """Ask for the summary (streamed, nothing shown); the summary, its usage and the characters cut to fit.
    Raises `CompactionFailed`."""
    assembler = TurnAssembler()
    summary, cut = summary_request(params, window_tokens=config.window)
    try:
        request = without_unsupported(summary, client.unsupported)
        async with client.stream(config, request) as events:
            async for event in events:
                assembler.feed(event)
    except Exception as exc:
        described = describe_api_error(exc, config, client.endpoint(config))
        if described is None:
            raise
        raise CompactionFailed(described[0]) from exc
    text = "\n".join(b["text"] for b in assembler.content() if b.get("type") == "text").strip()
    if not assembler.finished or not text:
        raise CompactionFailed(
            "the model's summary came back empty or cut; the conversation was kept as it was"
        )
    return text, assembler.usage, cut


#: What follows the summary when the run was in the middle of its work (its last tool results are summarised).
CONTINUE_NOTE = "[Continue the work from this summary: the results of your last tool calls are in it.]"


def compacted_messages(messages: list[Message], summary: str) -> list[Message]:
    """The conversation that replaces `messages`: one user message with the summary, then the request the run
    started with when it is the last message (a fresh request); in the middle of a run, a note to continue."""
    opening: list[Block] = [{"type": "text", "text": SUMMARY_PREFIX + summary}]
    last = next((m for m in reversed(messages) if m["role"] != "system"), None)
    if last is None or last["role"] == "assistant":
        return [{"role": "user", "content": opening}]
    blocks = [b for b in _blocks(last) if b.get("type") in ("text", "image")]
    if any(b.get("type") == "tool_result" for b in _blocks(last)):
        return [{"role": "user", "content": [*opening, {"type": "text", "text": CONTINUE_NOTE}]}]
    return [{"role": "user", "content": [*opening, *blocks]}]


async def compact(
    *,
    client: ModelClient,
    config: AgentConfig,
    params: dict[str, Any],
    conversation: Conversation,
    tokens_before: int,
    before_replace: Callable[[Compaction], None] | None = None,
) -> Compaction:
    """Summarise and replace the conversation (`params` is the request that was about to be sent).

    `before_replace` sees the compaction while the old conversation is still there (the session store
    saves it first, so the file keeps the whole history).
    """
    before = conversation.messages
    summary, usage, cut = await summarize(client, config, params)
    done = Compaction(
        summary=summary, usage=usage, tokens_before=tokens_before, messages_before=len(before), cut_chars=cut
    )
    if before_replace is not None:
        before_replace(done)
    conversation.replace([*conversation.told.opening, *compacted_messages(before, summary)])
    conversation.retell()
    return done
