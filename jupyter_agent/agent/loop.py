"""The agent loop: stream a turn, run its tool calls, send the results back, until the model is done.

One async core (docs/architecture.md, "The path of a request"). A run always returns a `RunFinished` (on
success, a limit, an API error, a stop) and leaves the conversation valid for the next request:

- **Interrupt** (Interrupt or Stop set the run's `StopSignal` and cancel its task) at any await, and at a
  check of the signal between steps (a cancellation can be lost). The turn's finished blocks and a partial
  text (what the user saw) are kept, partial tool calls dropped; each unfinished call gets INTERRUPTED
  (saying so when its change had landed) and `[The user interrupted this run.]` ends the user message. A
  sync `@tool` running in a thread finishes in the background, its result discarded; a file change after
  the stop is not made (`StopSignal.committing`).
- **Limits** (`max_turns`, `budget_usd`, `session_budget_usd`) are checked before each request: the calls of
  the turn that reached one still run, their results wait for the next run. A sub-agent's requests count
  against its run's and session's caps; a capped unpriced model sends nothing (pricing.unpriced_cap).
- **Context**: near the window, older tool results are shortened; still over `context_compact_fraction`,
  the conversation is compacted (compact.py). **Saving**: a recorder writes every change of a turn.
- **Stream cut**: the client retries opening a request (retry.py); a stream that breaks after it started is
  sent again once, from the same request; a second break ends the run with a retryable `ErrorEvent`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..base.stopping import current_stop
from ..tools.context import ToolContext
from ..tools.core import ToolCall
from ..tools.dispatch import Dispatcher
from .client import ModelClient
from .compact import Compaction, CompactionFailed, compact
from .config import AgentConfig
from .conversation import Block, Conversation
from .events import (
    AgentEvent,
    Compacted,
    Emit,
    ErrorEvent,
    Notice,
    RunFinished,
    RunReason,
    RunStarted,
    Usage,
    UsageUpdate,
)
from .pricing import price_for, turn_cost, unknown_price_note, unpriced_cap
from .stops import after_stop
from .thinking import thinking_note
from .toolrun import ToolRunner
from .turn import RunFailed, TurnStreamer, close_partial, request_params
from .web_search import fit_web_search

if TYPE_CHECKING:
    from ..sessions.recorder import SessionRecorder

log = logging.getLogger(__name__)

INTERRUPT_NOTE = "[The user interrupted this run.]"

__all__ = ["INTERRUPT_NOTE", "AgentRun", "RunFailed", "Tally"]


@dataclass(kw_only=True)
class Tally:
    """Usage and cost that add up over turns (a run's, or a session's); `parent` adds them up too, so a
    sub-agent's turns count in its run and the run's in its session."""

    usage: Usage = dataclasses.field(default_factory=Usage)
    cost_usd: float = 0.0
    parent: Tally | None = None

    def add(self, usage: Usage, cost: float) -> None:
        self.usage = self.usage + usage
        self.cost_usd += cost
        if self.parent is not None:
            self.parent.add(usage, cost)


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
        session_tally: Tally,
        within: Tally | None = None,
        mode: str = "default",
        recorder: SessionRecorder | None = None,
    ) -> None:
        """`session_tally`: the session's tally, which `session_budget_usd` caps. `within`: for a sub-agent, the
        tally of the run it works for: its usage adds up there, and that run's `budget_usd` is its cap too."""
        self.run_id = run_id
        self.conversation = conversation
        self.client = client
        self.recorder = recorder
        self.config = config
        self.system = system
        self._emit = emit
        self.session_tally = session_tally
        self.mode = mode
        self.tally = Tally(parent=within or session_tally)
        #: What `budget_usd` caps: the whole `%%agent` run, its sub-agents included.
        self.run_total = within or self.tally
        self.turns = 0
        self.tools = ToolRunner(
            dispatcher=dispatcher, ctx=ctx, emit=self.emit, max_result_chars=config.max_tool_result_chars
        )
        self.streamer = TurnStreamer(client=client, config=config, emit=self.emit, tools=self.tools)
        self._tool_params = [tool.to_param() for tool in dispatcher.tools().values()]
        self._fixed_chars = len(system) + sum(len(str(t)) for t in self._tool_params)
        self._compacted_turn: int | None = None
        #: Whether a Stop hook already sent the model back in this run (the hook's input says so).
        self._stop_hook_active = False

    def emit(self, event: AgentEvent) -> None:
        """The UI's sink must not be able to break the loop."""
        try:
            self._emit(event)
        except Exception:
            log.exception("the event sink raised on %s", type(event).__name__)

    async def run(self, request: str, *, attachments: Sequence[Block] = ()) -> RunFinished:
        started = time.monotonic()
        self.emit(RunStarted(run_id=self.run_id, model=self.config.model, mode=self.mode))
        capped = self.config.budget_usd is not None or self.config.session_budget_usd is not None
        for note in (
            None if capped else unknown_price_note(self.config.model),  # capped: _limit_reached says it
            thinking_note(self.config.thinking, self.config.model),
        ):
            if note:
                self.emit(Notice(level="info", message=note))
        self.conversation.repair()
        self.conversation.add_user_text(request, attachments=attachments)
        self.checkpoint()
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
        self.checkpoint()
        finished = RunFinished(
            reason=reason,
            turns=self.turns,
            usage=self.tally.usage,
            cost_usd=self.tally.cost_usd,
            duration=time.monotonic() - started,
            session_cost_usd=self.session_tally.cost_usd,
            priced=price_for(self.config.model) is not None,
        )
        self.emit(finished)
        return finished

    async def _loop(self) -> RunReason:
        stop = current_stop()
        while True:
            stop.check()
            limit = self._limit_reached()
            if limit is not None:
                return limit
            self.turns += 1
            await self._fit_context()
            self.checkpoint()
            turn = await self.streamer.stream(self._params())
            self._account(turn.usage)
            self.conversation.add_assistant(turn.content())
            self.checkpoint()
            if stop.requested:  # the turn ended as the user stopped the run: its calls do not start
                self.conversation.add_tool_results(self.tools.skip(turn.calls))
                stop.check()
            after = after_stop(turn.stop_reason)
            if turn.calls:
                if turn.stop_reason == "max_tokens":
                    self._explain_cut_calls(turn.calls)
                if after.runs_calls:
                    self.conversation.add_tool_results(await self.tools.run(turn.calls))
                    continue
                skipped = self.tools.skip(
                    turn.calls, f"not run: the model's turn ended with '{turn.stop_reason}'"
                )
                self.conversation.add_tool_results(skipped)
            if after.failure is not None:
                raise RunFailed(after.failure, retryable=False)
            if after.notice is not None:
                self.emit(after.notice(self.config))
            if not after.continues:
                if turn.stop_reason == "end_turn" and await self._stop_hooks_continue():
                    continue
                return after.reason

    async def _stop_hooks_continue(self) -> bool:
        """Stop hooks may send the model back to work: their reason becomes the next user message."""
        hooks = self.tools.dispatcher.hooks
        if not hooks.stop:
            return False
        reason = await hooks.run_stop(self._stop_hook_active)
        if reason is None:
            return False
        self._stop_hook_active = True
        self.emit(Notice(level="info", message=f"a Stop hook sent the agent back to work: {reason}"))
        self.conversation.add_user_text(f"[A Stop hook asks you to continue: {reason}]")
        return True

    def _limit_reached(self) -> RunReason | None:
        config = self.config
        unpriced = unpriced_cap(
            config.model, budget_usd=config.budget_usd, session_budget_usd=config.session_budget_usd
        )
        if unpriced is not None:
            self.emit(Notice(level="warning", message=unpriced))
            return "budget"
        if self.turns >= self.config.max_turns:
            self.emit(
                Notice(
                    level="warning",
                    message=f"stopped after {self.turns} model turns (max_turns); run again to let it continue",
                )
            )
            return "max_turns"
        budget = self.config.budget_usd
        if budget is not None and self.run_total.cost_usd >= budget:
            self.emit(
                Notice(
                    level="warning",
                    message=f"stopped: this run cost ${self.run_total.cost_usd:.4f}, reaching its budget of ${budget:.4f}",
                )
            )
            return "budget"
        session_budget = self.config.session_budget_usd
        if session_budget is not None and self.session_tally.cost_usd >= session_budget:
            self.emit(
                Notice(
                    level="warning",
                    message=f"stopped: this session has cost ${self.session_tally.cost_usd:.4f}, reaching "
                    f"session_budget_usd (${session_budget:.4f}); raise it "
                    "(%config AgentMagics.session_budget_usd = …) to go on",
                )
            )
            return "budget"
        return None

    def _params(self) -> dict[str, object]:
        params = request_params(
            config=self.config, system=self.system, tools=self._tool_params, conversation=self.conversation
        )
        return fit_web_search(params, searches_used=self.tally.usage.web_searches)

    def checkpoint(self) -> None:
        """Save what changed in the conversation (a no-op without a recorder; failures are the recorder's)."""
        if self.recorder is not None:
            self.recorder.sync(self.conversation)

    def _account(self, turn: Usage, *, prompt_of_conversation: bool = True) -> None:
        cost = turn_cost(self.config.model, turn)
        self.tally.add(turn, cost)
        if prompt_of_conversation:
            self.conversation.note_prompt_size(turn.prompt_tokens)
        self.emit(
            UsageUpdate(
                turn=turn,
                run=self.tally.usage,
                run_cost_usd=self.tally.cost_usd,
                session=self.session_tally.usage,
                session_cost_usd=self.session_tally.cost_usd,
            )
        )

    async def _fit_context(self) -> None:
        """Near the context window, shorten older tool results (oldest first); still too big: compact."""
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
            estimate = self.conversation.estimated_prompt_tokens(self._fixed_chars)
        fraction = self.config.context_compact_fraction
        if (
            fraction is not None
            and estimate > window * fraction
            and len(self.conversation) >= 3
            and self._compacted_turn != self.turns - 1  # one compaction, then at least one turn
        ):
            await self.compact(automatic=True)

    async def compact(self, *, automatic: bool) -> bool:
        """Replace the conversation by the model's summary of it; False (and a warning) when that failed."""
        self.conversation.repair()
        tokens_before = self.conversation.estimated_prompt_tokens(self._fixed_chars)
        messages_before = len(self.conversation)
        try:
            done = await compact(
                client=self.client,
                config=self.config,
                params=self._params(),
                conversation=self.conversation,
                tokens_before=tokens_before,
                before_replace=self._before_compaction,
            )
        except CompactionFailed as failure:
            self.emit(
                Notice(
                    level="warning",
                    message=f"COMPACTION_FAILED: {failure}; the conversation was kept as it was "
                    "(`%agent reset` starts over)",
                )
            )
            return False
        self._account(done.usage, prompt_of_conversation=False)
        self._compacted_turn = self.turns
        self.checkpoint()
        self.emit(
            Compacted(
                tokens_before=tokens_before,
                tokens_after=self.conversation.estimated_prompt_tokens(self._fixed_chars),
                messages_before=messages_before,
                automatic=automatic,
            )
        )
        return True

    def _before_compaction(self, done: Compaction) -> None:
        """The file keeps the conversation as it was, then the record that it is being replaced."""
        self.checkpoint()
        if self.recorder is not None:
            self.recorder.compacted(
                run_id=self.run_id, tokens_before=done.tokens_before, summary_chars=len(done.summary)
            )

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

    def _finish_interrupted(self) -> None:
        """Keep what was said, answer every call that did not finish, and tell the model it was stopped."""
        turn, self.streamer.current = self.streamer.current, None
        if turn is not None:
            close_partial(turn, self.emit)
            self.conversation.add_assistant(turn.content())
            self.conversation.add_tool_results(self.tools.skip(turn.calls))
        elif self.tools.active:
            self.conversation.add_tool_results(self.tools.abandon())
        self.conversation.add_user_text(INTERRUPT_NOTE)

    def _abandon_turn(self) -> None:
        """After an error: a turn that was being streamed is not kept; running calls are answered."""
        self.streamer.current = None
        if self.tools.active:
            self.conversation.add_tool_results(self.tools.abandon("not run: the run failed"))
