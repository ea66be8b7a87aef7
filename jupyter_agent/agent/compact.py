"""Compaction: when the conversation nears the context window, the model summarises it and work goes on from that.

Shortening old tool results (`Conversation.shorten_old_results`) is the cheap first step; when the estimate
is still over `context_compact_fraction` of the window, the model is asked — through the same client,
with the same system prompt and tools, so the cached prefix is read rather than written — for a summary
of what was asked, what was decided, which files and cells were touched and what is still open. The
conversation then restarts from one user message holding that summary, followed by the part the model is
working on now:

- after a fresh request, the request itself (verbatim, after the summary);
- in the middle of a run, the last assistant turn and its tool results (kept whole, thinking included,
  so tool_use/tool_result pairing and the API's thinking rules still hold).

The system prompt and the tool list are never touched (the summary is user-message content), so the
prompt cache of that prefix survives a compaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .api_errors import describe_api_error
from .client import ModelClient, without_unsupported
from .config import AgentConfig
from .conversation import Block, Conversation, Message
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


@dataclass(frozen=True, kw_only=True)
class Compaction:
    summary: str
    usage: Usage
    tokens_before: int
    messages_before: int


def summary_request(params: dict[str, Any]) -> dict[str, Any]:
    """The request for the summary: the run's own request with the instruction appended and no tool use."""
    messages: list[Message] = list(params["messages"])
    instruction: Block = {"type": "text", "text": SUMMARY_INSTRUCTION}
    if messages and messages[-1]["role"] == "user":
        last = messages[-1]
        content = last["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        messages[-1] = {**last, "content": [*blocks, instruction]}
    else:
        messages.append({"role": "user", "content": [instruction]})
    summary = {k: v for k, v in params.items() if k not in ("thinking", "messages")}
    summary["messages"] = messages
    summary["max_tokens"] = min(int(params["max_tokens"]), SUMMARY_MAX_TOKENS)
    if "tools" in params:
        summary["tool_choice"] = {"type": "none"}
    return summary


async def summarize(client: ModelClient, config: AgentConfig, params: dict[str, Any]) -> tuple[str, Usage]:
    """Ask for the summary (streamed, nothing shown); raises `CompactionFailed`."""
    assembler = TurnAssembler()
    try:
        request = without_unsupported(summary_request(params), client.unsupported)
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
    return text, assembler.usage


def compacted_messages(messages: list[Message], summary: str) -> list[Message]:
    """The conversation that replaces `messages`: the summary, then what the model is working on now."""
    opening: list[Block] = [{"type": "text", "text": SUMMARY_PREFIX + summary}]
    if not messages or messages[-1]["role"] != "user":
        return [{"role": "user", "content": opening}]
    last = messages[-1]
    blocks: list[Block] = (
        [{"type": "text", "text": last["content"]}]
        if isinstance(last["content"], str)
        else list(last["content"])
    )
    if any(b.get("type") == "tool_result" for b in blocks) and len(messages) >= 2:
        return [{"role": "user", "content": opening}, messages[-2], last]
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
    summary, usage = await summarize(client, config, params)
    done = Compaction(summary=summary, usage=usage, tokens_before=tokens_before, messages_before=len(before))
    if before_replace is not None:
        before_replace(done)
    conversation.replace(compacted_messages(before, summary))
    return done
