"""The agent loop: stream a turn, run its tool calls, send the results back, until the model is done.

One async core (DESIGN.md §7). A run always returns a `RunFinished` — on success, on a limit, on an API
error and on cancellation — and always leaves the conversation valid for the next request:

- **Interrupt** (the task is cancelled: Interrupt or Stop) at any await — streaming, running a tool,
  waiting for approval. The finished blocks of the turn and a partially streamed text block are kept
  as-is (that text is what the user saw); partial tool calls are dropped. Every tool call that did not
  finish gets an INTERRUPTED result, and the note `[The user interrupted this run.]` ends the user message,
  so the model knows. A tool already running in a thread (a sync `@tool`) cannot be stopped and
  finishes in the background; its result is discarded.
- **Limits** (`max_turns`, `budget_usd`) are checked before each model request: the tool calls of the
  turn that reached a limit still run, and their results wait in the conversation for the next run.
- **Stream cut**: the SDK retries opening a request; a stream that breaks after it started is sent
  again once, from the same request; a second break ends the run with a retryable `ErrorEvent`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..tools.context import ToolContext
from ..tools.core import ToolCall
from ..tools.dispatch import Dispatched, Dispatcher
from ..tools.result import ToolResult
from ..tools.sandbox import cap_text
from ..tools.scheduler import run_scheduled
from .client import IncompleteStream, ModelClient, describe_api_error, is_stream_cut
from .config import AgentConfig
from .conversation import Conversation, interrupted_result
from .events import (
    AgentEvent,
    Emit,
    ErrorEvent,
    Notice,
    RunFinished,
    RunReason,
    RunStarted,
    TextDone,
    ToolFinished,
    ToolRunning,
    ToolStarted,
    Usage,
    UsageUpdate,
)
from .pricing import turn_cost, unknown_price_note
from .stream import TurnAssembler

log = logging.getLogger(__name__)

INTERRUPT_NOTE = "[The user interrupted this run.]"
_EPHEMERAL = {"type": "ephemeral"}


@dataclass(kw_only=True)
class Tally:
    """Usage and cost that add up over turns (a run's, or a session's)."""

    usage: Usage = dataclasses.field(default_factory=Usage)
    cost_usd: float = 0.0

    def add(self, usage: Usage, cost: float) -> None:
        self.usage = self.usage + usage
        self.cost_usd += cost


class RunFailed(Exception):
    """The run cannot continue; the message says why and what to do."""

    def __init__(self, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable


@dataclass(kw_only=True)
class _ToolBatch:
    """The calls being run, and those that finished (by position), for a cancellation to complete."""

    calls: Sequence[ToolCall]
    done: dict[int, Dispatched]


class AgentRun:
    """One run of the loop over a session's conversation. Create, `await run(request)`, discard."""

    def __init__(
        self,
        *,
        run_id: int,
        conversation: Conversation,
        client: ModelClient,
        dispatcher: Dispatcher,
        ctx: ToolContext,
        config: AgentConfig,
        system: str,
        emit: Emit,
        session: Tally,
        mode: str = "default",
    ) -> None:
        self.run_id = run_id
        self.conversation = conversation
        self.client = client
        self.dispatcher = dispatcher
        self.ctx = ctx
        self.config = config
        self.system = system
        self._emit = emit
        self.session = session
        self.mode = mode
        self.tally = Tally()
        self.turns = 0
        self._assembler: TurnAssembler | None = None
        self._batch: _ToolBatch | None = None
        self._tools = [tool.to_param() for tool in dispatcher.tools().values()]
        self._fixed_chars = len(system) + sum(len(str(t)) for t in self._tools)

    def emit(self, event: AgentEvent) -> None:
        """The UI's sink must not be able to break the loop."""
        try:
            self._emit(event)
        except Exception:
            log.exception("the event sink raised on %s", type(event).__name__)

    async def run(self, request: str) -> RunFinished:
        started = time.monotonic()
        self.emit(RunStarted(run_id=self.run_id, model=self.config.model, mode=self.mode))
        note = unknown_price_note(self.config.model)
        if note:
            self.emit(Notice(level="info", message=note))
        self.conversation.repair()
        self.conversation.add_user_text(request)
        reason: RunReason = "end_turn"
        try:
            reason = await self._loop()
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            self._finish_interrupted()
            reason = "interrupted"
        except RunFailed as failure:
            self._abandon_turn()
            self.emit(ErrorEvent(message=failure.message, retryable=failure.retryable))
            reason = "error"
        except Exception as exc:  # a bug of ours: report it, keep the conversation usable
            log.exception("agent loop failed")
            self._abandon_turn()
            self.emit(
                ErrorEvent(
                    message=f"internal error in the agent loop: {type(exc).__name__}: {exc}", retryable=False
                )
            )
            reason = "error"
        self.conversation.repair()
        finished = RunFinished(
            reason=reason,
            turns=self.turns,
            usage=self.tally.usage,
            cost_usd=self.tally.cost_usd,
            duration=time.monotonic() - started,
        )
        self.emit(finished)
        return finished

    async def _loop(self) -> RunReason:
        while True:
            if self.turns >= self.config.max_turns:
                self.emit(
                    Notice(
                        level="warning",
                        message=f"stopped after {self.turns} model turns (max_turns); run again to let it continue",
                    )
                )
                return "max_turns"
            budget = self.config.budget_usd
            if budget is not None and self.tally.cost_usd >= budget:
                self.emit(
                    Notice(
                        level="warning",
                        message=f"stopped: this run cost ${self.tally.cost_usd:.4f}, reaching its budget of ${budget:.4f}",
                    )
                )
                return "budget"
            self.turns += 1
            turn = await self._stream_turn()
            self._assembler = None
            self.conversation.add_assistant(turn.content())
            stop = turn.stop_reason
            if turn.calls:
                if stop == "max_tokens":
                    self._explain_cut_calls(turn.calls)
                if stop in ("tool_use", "max_tokens", "pause_turn"):
                    results = await self._run_tools(turn.calls)
                    self.conversation.add_tool_results(results)
                    continue
                self._skip_calls(turn.calls, f"not run: the model's turn ended with '{stop}'")
            if stop == "pause_turn":
                self.emit(Notice(level="info", message="the model paused a long turn; continuing it"))
                continue
            if stop == "refusal":
                self.emit(
                    Notice(level="warning", message="the model declined to continue this request (refusal)")
                )
                return "refusal"
            if stop == "max_tokens":
                self.emit(
                    Notice(
                        level="warning",
                        message=f"the answer was cut at max_tokens ({self.config.max_tokens} output tokens); "
                        "ask it to continue, or raise max_tokens",
                    )
                )
            elif stop == "model_context_window_exceeded":
                self.emit(
                    Notice(
                        level="warning",
                        message="the model's context window is full; start over with `%agent reset`",
                    )
                )
            return "end_turn"

    # one model turn

    def _params(self) -> dict[str, Any]:
        cache = self.config.prompt_caching
        system: dict[str, Any] = {"type": "text", "text": self.system}
        if cache:
            system["cache_control"] = _EPHEMERAL
        params: dict[str, Any] = {
            "model": self.config.model,
            "max_tokens": self.config.max_tokens,
            "system": [system],
            "messages": self.conversation.request_messages(cache=cache),
        }
        if self._tools:
            tools = list(self._tools)
            if cache:
                tools[-1] = {**tools[-1], "cache_control": _EPHEMERAL}
            params["tools"] = tools
        return params

    async def _stream_turn(self) -> TurnAssembler:
        self._fit_context()
        params = self._params()
        for attempt in (1, 2):
            assembler = TurnAssembler()
            self._assembler = assembler
            opened = False
            try:
                async with self.client.stream(self.config, params) as events:
                    opened = True
                    async for event in events:
                        item = assembler.feed(event)
                        if item is None:
                            continue
                        if isinstance(item, ToolCall):
                            self.emit(ToolStarted(call_id=item.id, name=item.name, input=item.input))
                        else:
                            self.emit(item)
                if not assembler.finished:
                    raise IncompleteStream("the stream ended before message_stop")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not (opened and is_stream_cut(exc)):
                    described = describe_api_error(exc, self.config)
                    if described is None:
                        raise
                    raise RunFailed(described[0], retryable=described[1]) from exc
                self._discard_attempt(assembler)
                if attempt == 2:
                    raise RunFailed(
                        f"the connection to the model dropped twice in the middle of an answer ({exc}); "
                        "the conversation is intact, run the cell again to retry",
                        retryable=True,
                    ) from exc
                self.emit(
                    Notice(
                        level="warning",
                        message="the answer's stream was cut; sending the same request again",
                    )
                )
                continue
            self._account(assembler.usage)
            return assembler
        raise AssertionError("unreachable")

    def _discard_attempt(self, assembler: TurnAssembler) -> None:
        """A cut attempt is thrown away: close its text and the cards of its calls, none of which ran."""
        self._assembler = None
        if assembler.has_partial_text:
            self.emit(TextDone())
        for call in assembler.calls:
            self._finish_card(call, interrupted_result("not run: the stream was cut before the turn ended"))

    def _account(self, turn: Usage) -> None:
        cost = turn_cost(self.config.model, turn)
        self.tally.add(turn, cost)
        self.session.add(turn, cost)
        self.conversation.note_prompt_size(turn.prompt_tokens)
        self.emit(
            UsageUpdate(
                turn=turn,
                run=self.tally.usage,
                run_cost_usd=self.tally.cost_usd,
                session=self.session.usage,
                session_cost_usd=self.session.cost_usd,
            )
        )

    # the context budget

    def _fit_context(self) -> None:
        window = self.config.window
        estimate = self.conversation.estimated_prompt_tokens(self._fixed_chars)
        if estimate <= window * self.config.shorten_at:
            return
        target_chars = int(window * self.config.shorten_to * 4) - self._fixed_chars
        count = self.conversation.shorten_old_results(target_chars=max(target_chars, 0))
        if count:
            self.emit(
                Notice(
                    level="info",
                    message=f"{count} older tool result(s) were shortened to keep the conversation "
                    "within the model's context window",
                )
            )

    # tools

    async def _run_tools(self, calls: Sequence[ToolCall]) -> list[tuple[str, ToolResult]]:
        batch = _ToolBatch(calls=calls, done={})
        self._batch = batch

        async def one(call: ToolCall) -> Dispatched:
            def running(title: str) -> None:
                self.emit(ToolRunning(call_id=call.id, title=title))

            dispatched = await self.dispatcher.dispatch(call, self.ctx, on_running=running)
            dispatched = dataclasses.replace(dispatched, result=self._capped(dispatched.result))
            self.emit(
                ToolFinished(
                    call_id=call.id,
                    name=call.name,
                    title=dispatched.title,
                    kind=dispatched.kind,
                    result=dispatched.result,
                    duration=dispatched.duration,
                    decision=dispatched.decision,
                )
            )
            return dispatched

        finished = await run_scheduled(calls, one, self.dispatcher.is_read_only, batch.done)
        self._batch = None
        return [(call.id, d.result) for call, d in zip(calls, finished, strict=True)]

    def _capped(self, result: ToolResult) -> ToolResult:
        limit = self.config.max_tool_result_chars
        if len(result.content) <= limit:
            return result
        return dataclasses.replace(result, content=cap_text(result.content, limit))

    def _explain_cut_calls(self, calls: Sequence[ToolCall]) -> None:
        cut = [c for c in calls if c.raw_input_error is not None]
        for call in cut:
            call.raw_input_error = (
                f"your input to {call.name} was cut off: the answer reached max_tokens "
                f"({self.config.max_tokens} output tokens) before its JSON was complete. Call {call.name} "
                "again with a smaller input (for a large file, write it in parts)"
            )
        if cut:
            self.emit(
                Notice(
                    level="warning",
                    message=f"a tool call was cut by max_tokens ({self.config.max_tokens}); "
                    "the model is asked to retry with a smaller input",
                )
            )

    def _skip_calls(self, calls: Sequence[ToolCall], message: str) -> None:
        results = [(c.id, interrupted_result(message)) for c in calls]
        for call, (_, result) in zip(calls, results, strict=True):
            self._finish_card(call, result)
        self.conversation.add_tool_results(results)

    def _finish_card(self, call: ToolCall, result: ToolResult) -> None:
        self.emit(
            ToolFinished(
                call_id=call.id,
                name=call.name,
                title=call.name,
                kind="other",
                result=result,
                duration=0.0,
                decision=None,
            )
        )

    # endings

    def _finish_interrupted(self) -> None:
        """Keep what was said, answer every call that did not finish, and tell the model it was stopped."""
        assembler, self._assembler = self._assembler, None
        batch, self._batch = self._batch, None
        if assembler is not None:
            if assembler.has_partial_text:
                self.emit(TextDone())
            self.conversation.add_assistant(assembler.content())
            for call in assembler.calls:
                self._finish_card(call, interrupted_result())
            self.conversation.add_tool_results([(c.id, interrupted_result()) for c in assembler.calls])
        elif batch is not None:
            results: list[tuple[str, ToolResult]] = []
            for index, call in enumerate(batch.calls):
                done = batch.done.get(index)
                if done is None:
                    result = interrupted_result()
                    self._finish_card(call, result)
                else:
                    result = done.result
                results.append((call.id, result))
            self.conversation.add_tool_results(results)
        self.conversation.add_user_text(INTERRUPT_NOTE)

    def _abandon_turn(self) -> None:
        """After an error: a turn that was being streamed is not kept; running calls are answered."""
        self._assembler = None
        batch, self._batch = self._batch, None
        if batch is not None:
            results = [
                (
                    c.id,
                    batch.done[i].result
                    if i in batch.done
                    else interrupted_result("not run: the run failed"),
                )
                for i, c in enumerate(batch.calls)
            ]
            self.conversation.add_tool_results(results)
