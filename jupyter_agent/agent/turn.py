"""Stream one model turn: build the request (with its cache breakpoints), stream it, retry a cut once.

The SDK retries opening a request (429, 5xx, 529, connection errors). A stream that breaks after it
started — the connection drops, or the server sends an `error` event — is sent again once, from the
same request; the partial attempt is thrown away (its text block is closed and its tool cards finished
as not run, for the UI). A second break raises `RunFailed` with a retryable message.

An Anthropic-compatible endpoint (a local model server, a proxy) may reject prompt caching or thinking
with a 400 that names the field: the request is sent again without it, with one notice, and the feature
stays off for the session.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..tools.core import ToolCall
from .client import (
    IncompleteStream,
    ModelClient,
    describe_api_error,
    is_stream_cut,
    rejected_feature,
    without_unsupported,
)
from .config import AgentConfig
from .conversation import Conversation, interrupted_result
from .events import AgentEvent, Notice, TextDone, ThinkingDone, ToolStarted
from .stream import TurnAssembler
from .thinking import thinking_param, turn_max_tokens
from .toolrun import ToolRunner

_EPHEMERAL = {"type": "ephemeral"}


class RunFailed(Exception):
    """The run cannot continue; the message says why and what to do."""

    def __init__(self, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable


def request_params(
    *, config: AgentConfig, system: str, tools: list[dict[str, Any]], conversation: Conversation
) -> dict[str, Any]:
    """The Messages API request. With caching: breakpoints on the system prompt, the last tool
    definition (together they cache the whole fixed prefix) and the conversation tail — 3 of the 4 allowed."""
    cache = config.prompt_caching
    system_block: dict[str, Any] = {"type": "text", "text": system}
    if cache:
        system_block["cache_control"] = _EPHEMERAL
    thinking = thinking_param(config.thinking, config.model)
    params: dict[str, Any] = {
        "model": config.model,
        "max_tokens": turn_max_tokens(config.max_tokens, thinking),
        "system": [system_block],
        "messages": conversation.request_messages(cache=cache),
    }
    if thinking is not None:
        params["thinking"] = thinking
    if tools:
        sent = list(tools)
        if cache:
            sent[-1] = {**sent[-1], "cache_control": _EPHEMERAL}
        params["tools"] = sent
    return params


_FEATURE_NAMES = {"cache_control": "prompt caching (cache_control)", "thinking": "extended thinking"}


class _Unsupported(Exception):
    def __init__(self, feature: str) -> None:
        super().__init__(feature)
        self.feature = feature


class TurnStreamer:
    """Streams turns for one run; `current` is the turn being streamed (for a cancellation to keep)."""

    def __init__(
        self,
        *,
        client: ModelClient,
        config: AgentConfig,
        emit: Callable[[AgentEvent], None],
        tools: ToolRunner,
    ) -> None:
        self.client = client
        self.config = config
        self.emit = emit
        self.tools = tools
        self.current: TurnAssembler | None = None

    async def stream(self, params: dict[str, Any]) -> TurnAssembler:
        attempt = 0
        while True:
            attempt += 1
            sent = without_unsupported(params, self.client.unsupported)
            assembler = TurnAssembler()
            self.current = assembler
            try:
                await self._stream_into(assembler, sent)
            except asyncio.CancelledError:
                raise
            except _Unsupported as refused:
                self.client.unsupported.add(refused.feature)
                self.emit(
                    Notice(
                        level="warning",
                        message=f"this endpoint does not accept {_FEATURE_NAMES[refused.feature]}; continuing "
                        "without it for this session",
                    )
                )
                attempt -= 1
                continue
            except _CutStream as cut:
                self._discard(assembler)
                if attempt == 2:
                    raise RunFailed(
                        f"the connection to the model dropped twice in the middle of an answer ({cut.__cause__}); "
                        "the conversation is intact, run the cell again to retry",
                        retryable=True,
                    ) from cut.__cause__
                self.emit(
                    Notice(
                        level="warning", message="the answer's stream was cut; sending the same request again"
                    )
                )
                continue
            self.current = None
            return assembler

    async def _stream_into(self, assembler: TurnAssembler, params: dict[str, Any]) -> None:
        opened = False
        try:
            async with self.client.stream(self.config, params) as events:
                opened = True
                async for event in events:
                    item = assembler.feed(event)
                    if isinstance(item, ToolCall):
                        self.emit(
                            ToolStarted(
                                call_id=item.id,
                                name=item.name,
                                input=item.input,
                                kind=self.tools.kind_of(item.name),
                            )
                        )
                    elif item is not None:
                        self.emit(item)
            if not assembler.finished:
                raise IncompleteStream("the stream ended before message_stop")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if opened and is_stream_cut(exc):
                raise _CutStream() from exc
            feature = None if opened else rejected_feature(exc, params)
            if feature is not None and feature not in self.client.unsupported:
                raise _Unsupported(feature) from exc
            described = describe_api_error(exc, self.config)
            if described is None:
                raise
            raise RunFailed(described[0], retryable=described[1]) from exc

    def _discard(self, assembler: TurnAssembler) -> None:
        """A cut attempt is thrown away: close its text and the cards of its calls, none of which ran."""
        self.current = None
        close_partial(assembler, self.emit)
        for call in assembler.calls:
            self.tools.finish_card(
                call, interrupted_result("not run: the stream was cut before the turn ended")
            )


def close_partial(assembler: TurnAssembler, emit: Callable[[AgentEvent], None]) -> None:
    """Close, for the UI, the text or thinking block a stopped stream left open."""
    if assembler.has_partial_thinking:
        emit(ThinkingDone())
    if assembler.has_partial_text:
        emit(TextDone())
    for done in assembler.server.unfinished("the answer stopped before the search's results came"):
        emit(done)


class _CutStream(Exception):
    """Internal: the stream broke after it started (the cause is chained)."""
