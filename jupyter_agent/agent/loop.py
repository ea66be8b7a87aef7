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
- **Context**: near the window, older tool results are shortened (only on models that check no thinking
  prefix: it rewrites earlier messages); still over `context_compact_fraction`, the conversation is compacted
  (compact.py); a request that would still not fit is never sent. **Saving**: a recorder writes every change.
- **Append-only**: before each request, what changed in the session (facts, tools) is told by appending
  (updates.py); a 400 about thinking blocks is repaired once (`prefix_mismatch_behavior: "drop_block"`, kept
  for the conversation) and a 400 to the request itself takes back what no response has seen, so the next run
  is not refused too.
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
from functools import partial
from typing import TYPE_CHECKING

from ..base.stopping import current_stop
from ..tools.context import ToolContext
from ..tools.core import ToolCall
from ..tools.dispatch import Dispatcher
from .client import ModelClient
from .config import AgentConfig
from .context_fit import compact_run, fit_context
from .conversation import Block, Conversation
from .events import (
    AgentEvent,
    Emit,
    ErrorEvent,
    Notice,
    RunFinished,
    RunReason,
    RunStarted,
    Usage,
    UsageUpdate,
)
from .hook_moments import hook_halt, stop_hooks_continue
from .limits import limit_reached
from .models import accepts
from .pricing import price_for, turn_cost, unknown_price_note
from .repair import dropped_notice, repair_thinking
from .small_model import RunSmallModel
from .stops import after_stop
from .stream import TurnAssembler
from .thinking import ThinkingPlan, ThinkingSettingError
from .toolrun import ToolRunner
from .turn import RunFailed, ThinkingRejected, TurnStreamer, close_partial, request_params
from .updates import Surroundings, tell

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
        surroundings: Surroundings,
        emit: Emit,
        session_tally: Tally,
        within: Tally | None = None,
        mode: str = "default",
        recorder: SessionRecorder | None = None,
    ) -> None:
        """`conversation` has its prefix fixed (system prompt, tools). `surroundings`: what the session says is
        true now (facts, tools that may run), told by appending before each request. `session_tally`: the
        session's tally, which `session_budget_usd` caps. `within`: for a sub-agent, the tally of the run it
        works for: its usage adds up there, and that run's `budget_usd` is its cap too."""
        self.run_id = run_id
        self.conversation = conversation
        self.client = client
        self.recorder = recorder
        self.config = config
        self.surroundings = surroundings
        self.accepts = accepts(config.model)
        self._emit = emit
        self.session_tally = session_tally
        self.mode = mode
        self.tally = Tally(parent=within or session_tally)
        #: What `budget_usd` caps: the whole `%%agent` run, its sub-agents included.
        self.run_total = within or self.tally
        self.turns = 0
        #: Responses the model sent this run (its usage was accounted): 0 means the run never reached it.
        self.answers = 0
        self.tools = ToolRunner(
            dispatcher=dispatcher, ctx=ctx, emit=self.emit, max_result_chars=config.max_tool_result_chars
        )
        self.streamer = TurnStreamer(client=client, config=config, emit=self.emit, tools=self.tools)
        side = partial(self.account, prompt_tokens=None, of_conversation=False)  # the small model's requests
        ctx.run.attach_small_model(RunSmallModel(client=client, config=config, account=side))
        self.compacted_turn: int | None = None
        #: The thinking part of every request of this run (`run` makes it; a model that cannot take the
        #: settings ends the run before anything is sent).
        self.plan: ThinkingPlan | None = None
        #: The latest `input_transformations` the API reported (thinking blocks it dropped or let through).
        self.transformations: list[dict[str, object]] = []
        #: Where the run's request went and the conversation's generation then: a refused request is taken back
        #: to there (a compaction since makes the position stale; `Conversation.take_back` knows).
        self.pending_start: tuple[int, int] = (0, 0)
        self.pending_generation = 0
        #: Whether a Stop hook already sent the model back in this run (the hook's input says so).
        self.stop_hook_active = False

    def emit(self, event: AgentEvent) -> None:
        """The UI's sink must not be able to break the loop."""
        try:
            self._emit(event)
        except Exception:
            log.exception("the event sink raised on %s", type(event).__name__)

    @property
    def fixed_chars(self) -> int:
        prefix = self.conversation.prefix
        if prefix is None:
            return 0
        return len(prefix.system) + sum(len(str(t)) for t in prefix.tools)

    @property
    def searches_used(self) -> int:
        return self.tally.usage.web_searches

    async def run(self, request: str, *, attachments: Sequence[Block] = ()) -> RunFinished:
        started = time.monotonic()
        self.emit(RunStarted(run_id=self.run_id, model=self.config.model, mode=self.mode))
        config = self.config
        try:
            self.plan = config.thinking_plan()
        except ThinkingSettingError as refused:  # nothing is sent and nothing is added to the conversation
            self.emit(ErrorEvent(message=f"THINKING_SETTING: {refused}", retryable=False))
            return self._finished("error", started)
        capped = config.budget_usd is not None or config.session_budget_usd is not None
        for note in (None if capped else unknown_price_note(config.model), *self.plan.notes):
            if note:  # capped: _limit_reached says it
                self.emit(Notice(level="info", message=note))
        self.conversation.repair()
        self.pending_start = self.conversation.position()
        self.pending_generation = self.conversation.generation
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
            if failure.refused:
                self._take_back_pending()
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
        return self._finished(reason, started)

    def _finished(self, reason: RunReason, started: float) -> RunFinished:
        finished = RunFinished(
            reason=reason,
            turns=self.turns,
            usage=self.tally.usage,
            cost_usd=self.tally.cost_usd,
            duration=time.monotonic() - started,
            session_cost_usd=self.session_tally.cost_usd,
            priced=price_for(self.config.model) is not None,
            answered=self.answers > 0,
        )
        self.emit(finished)
        return finished

    def _take_back_pending(self) -> None:
        """After the API refused a request (400): what no response has seen is taken back out, so that the next
        run does not send the refused content again (`take_back` reads the run's start against the conversation
        as it is now: after a compaction, the summary stays)."""
        if self.conversation.take_back(self.pending_start, generation=self.pending_generation):
            self.emit(
                Notice(
                    level="warning",
                    message="what this run added since the model's last answer was taken back out of the "
                    "conversation, so that the next run is not refused for it too",
                )
            )

    async def _loop(self) -> RunReason:
        stop = current_stop()
        while True:
            stop.check()
            limit = self._limit_reached()
            if limit is not None:
                return limit
            self.turns += 1
            self._tell()
            await self._fit_context()
            self._tell()  # after a compaction, the new history is told the facts and tools again
            self.checkpoint()
            turn = await self._request()
            self.account(turn.usage, prompt_tokens=turn.prompt_tokens())
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
                self.emit(after.notice(self.config, turn.stop_details))
            if not after.continues:
                if turn.stop_reason == "end_turn" and await stop_hooks_continue(self):
                    continue
                return after.reason

    def _limit_reached(self) -> RunReason | None:
        """A hook's `continue: false`, a max_turns or a budget reached: why the run ends now (it was said)."""
        if (halted := hook_halt(self)) is not None:
            return halted
        reached = limit_reached(
            self.config,
            turns=self.turns,
            run_cost=self.run_total.cost_usd,
            session_cost=self.session_tally.cost_usd,
        )
        if reached is None:
            return None
        reason, message = reached
        self.emit(Notice(level="warning", message=message))
        return reason

    def params(self) -> dict[str, object]:
        assert self.plan is not None
        return request_params(config=self.config, plan=self.plan, conversation=self.conversation)

    def _tell(self) -> None:
        """Append what changed in the session since the model was last told (facts, tools)."""
        said = tell(
            self.conversation,
            self.surroundings,
            accepts=self.accepts,
            inline_tools=self.config.provider == "anthropic",
            searches_used=self.searches_used,
        )
        if said.added or said.removed:
            log.info("tools told: added %s, removed %s", said.added, said.removed)

    async def _request(self) -> TurnAssembler:
        """Stream the next turn; a 400 about the thinking blocks sent back is repaired once, the documented way."""
        try:
            turn = await self.streamer.stream(self.params())
        except ThinkingRejected as rejected:
            self.emit(repair_thinking(self.conversation, rejected))
            self.checkpoint()
            turn = await self.streamer.stream(self.params())
        if turn.transformations:
            self.transformations = list(turn.transformations)
            notice = dropped_notice(turn.transformations)
            if notice is not None:
                self.emit(notice)
        return turn

    def checkpoint(self) -> None:
        """Save what changed in the conversation (a no-op without a recorder; failures are the recorder's)."""
        if self.recorder is not None:
            self.recorder.sync(self.conversation)

    def account(
        self,
        turn: Usage,
        *,
        prompt_tokens: int | None,
        of_conversation: bool = True,
        model: str | None = None,
    ) -> None:
        """Cost from the usage as billed (summed over server-side iterations) at `model`'s rates (None: the run's);
        the conversation's size from `prompt_tokens`, the prompt the API measured (None: it did not say, so the
        conversation is counted by its characters), unless the request was not the conversation's own."""
        cost = turn_cost(model or self.config.model, turn)
        self.answers += 1
        self.tally.add(turn, cost)
        if of_conversation:
            self.conversation.note_prompt_size(prompt_tokens)
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
        await fit_context(self)

    async def compact(self, *, automatic: bool) -> bool:
        """Replace the conversation by the model's summary of it; False (and a warning) when that failed."""
        return await compact_run(self, automatic=automatic)

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
