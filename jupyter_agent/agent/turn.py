"""Stream one model turn: build the request (with its cache breakpoints), stream it, retry a cut once.

The model client retries opening a request (429, 5xx, 529, connection errors; agent/retry.py), and each
wait is shown in the cell (`RetryWait`). A stream that breaks after it started — the connection drops,
nothing arrives for `stall_timeout`, or the server sends an `error` event — is sent again once, from the
same request; the partial attempt is thrown away (its text block is closed and its tool cards finished
as not run, for the UI). A second break raises `RunFailed` naming the cause and the endpoint.

An Anthropic-compatible endpoint (a local model server, a proxy) may reject prompt caching or thinking
with a 400 that names the field: the request is sent again without it, with one notice, and the feature
stays off for the session.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..base.json_values import is_object
from ..tools.core import ToolCall
from .api_errors import (
    IncompleteStream,
    cause_text,
    describe_api_error,
    error_message,
    is_bad_request,
    is_stream_cut,
    thinking_rejection,
)
from .client import ModelClient, rejected_feature, without_unsupported
from .config import AgentConfig
from .conversation import Conversation, interrupted_result
from .events import AgentEvent, Notice, TextDone, ThinkingDone, ToolStarted
from .models import accepts
from .stream import TurnAssembler
from .thinking import ThinkingPlan, with_block_binding
from .toolrun import ToolRunner

_EPHEMERAL = {"type": "ephemeral"}


class RunFailed(Exception):
    """The run cannot continue; the message says why and what to do. `refused`: the API answered 400 to the
    request itself (the run takes back what no response has seen, so the next run is not refused too)."""

    def __init__(self, message: str, *, retryable: bool, refused: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.refused = refused


class ThinkingRejected(RunFailed):
    """A 400 about the thinking blocks sent back: "prefix" (the prefix check: resend with `drop_block`) or
    "signature" (a signature the API cannot use: resend without thinking blocks). The run repairs it once."""

    def __init__(self, message: str, *, kind: str, detail: str) -> None:
        super().__init__(message, retryable=False, refused=True)
        self.kind = kind
        self.detail = detail


#: The beta under which `thinking.block_binding` is accepted and responses list `input_transformations`.
BINDING_BETA = "thinking-binding-controls-2026-08-01"


def request_params(*, config: AgentConfig, plan: ThinkingPlan, conversation: Conversation) -> dict[str, Any]:
    """The Messages API request: the conversation's fixed prefix, its messages, and this model's thinking.

    With caching: breakpoints on the system prompt, the last (non-deferred) tool definition — together they
    cache the whole fixed prefix — and the conversation tail: 3 of the 4 allowed. `betas` (sent as the
    `anthropic-beta` header by the client) holds what the request needs: the binding beta on models that check
    thinking blocks' prefixes (so `input_transformations` are reported), and those the thinking and the
    conversation's tool changes need."""
    prefix = conversation.prefix
    if prefix is None:
        raise ValueError("the conversation has no system prompt and tools yet (fix_prefix first)")
    cache = config.prompt_caching
    system_block: dict[str, Any] = {"type": "text", "text": prefix.system}
    if cache:
        system_block["cache_control"] = _EPHEMERAL
    told = conversation.told
    messages = conversation.request_messages(cache=cache)
    if messages.remasked_sent and told.binding is None and accepts(config.model).preserved_thinking:
        # A secret that became known after a message was sent changed that message's masked text: the thinking
        # blocks after it no longer match their prefix, so from now on the API drops them instead of refusing.
        told.binding = "drop_block"
    thinking = plan.thinking if told.binding is None else with_block_binding(plan.thinking, told.binding)
    params: dict[str, Any] = {
        "model": config.model,
        "max_tokens": plan.max_tokens,
        "system": [system_block],
        "messages": messages,
    }
    if thinking is not None:
        params["thinking"] = thinking
    if plan.effort is not None:
        params["output_config"] = {"effort": plan.effort}
    if prefix.tools:
        params["tools"] = _with_tools_breakpoint(list(prefix.tools)) if cache else list(prefix.tools)
    betas = set(plan.betas) | told.betas
    if accepts(config.model).preserved_thinking or told.binding is not None:
        betas.add(BINDING_BETA)
    if betas:
        params["betas"] = sorted(betas)
    return params


def narrates(thinking: Any) -> bool:
    """Whether thinking blocks of this request carry what the model writes between tool calls (shown as text)."""
    return is_object(thinking) and (
        thinking.get("display") == "updates" or thinking.get("type") == "between_tools"
    )


def _with_tools_breakpoint(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools with a cache breakpoint on the last one that is not deferred (a deferred one may not carry it)."""
    for index in range(len(tools) - 1, -1, -1):
        if not tools[index].get("defer_loading"):
            tools[index] = {**tools[index], "cache_control": _EPHEMERAL}
            break
    return tools


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
            assembler = TurnAssembler(narration=narrates(sent.get("thinking")), tools=self.tools.facts)
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
                cause = cause_text(cut.__cause__, self.config)
                if attempt == 2:
                    where = self.client.endpoint(self.config)
                    raise RunFailed(
                        f"the answer from the model API at {where} broke off twice in the middle ({cause}); "
                        "the conversation is intact, run the cell again to retry",
                        retryable=True,
                    ) from cut.__cause__
                self.emit(
                    Notice(
                        level="warning",
                        message=f"the answer's stream was cut ({cause}); sending the same request again",
                    )
                )
                continue
            self.current = None
            return assembler

    async def _stream_into(self, assembler: TurnAssembler, params: dict[str, Any]) -> None:
        opened = False
        try:
            async with self.client.stream(self.config, params, on_wait=self.emit) as events:
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
            for cut in assembler.cut_calls():  # a card opened for a call that never became complete
                self.emit(cut)
            if opened and is_stream_cut(exc):
                raise _CutStream() from exc
            feature = None if opened else rejected_feature(exc, params)
            if feature is not None and feature not in self.client.unsupported:
                raise _Unsupported(feature) from exc
            described = describe_api_error(exc, self.config, self.client.endpoint(self.config))
            if described is None:
                raise
            rejected = thinking_rejection(exc)
            if rejected is not None:
                raise ThinkingRejected(described[0], kind=rejected, detail=error_message(exc)) from exc
            raise RunFailed(described[0], retryable=described[1], refused=is_bad_request(exc)) from exc

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
    for cut in assembler.cut_calls():
        emit(cut)


class _CutStream(Exception):
    """Internal: the stream broke after it started (the cause is chained)."""
