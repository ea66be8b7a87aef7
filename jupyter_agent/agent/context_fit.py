"""Keeping a run's conversation within the model's context window: shortening, compaction, and never sending a
request that cannot fit."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from .client import ModelClient
from .compact import Compaction, CompactionFailed, compact
from .config import AgentConfig
from .conversation import Conversation
from .events import Compacted, Emit, Notice, Usage
from .hook_moments import post_compact, pre_compact
from .models import Accepts
from .thinking import ThinkingPlan, ThinkingSettingError
from .toolrun import ToolRunner
from .turn import RunFailed

if TYPE_CHECKING:
    from ..sessions.recorder import SessionRecorder


class FittedRun(Protocol):
    """What fitting and compacting need of a run (`loop.AgentRun` is one): the loop calls them, so they name
    the run by what they use of it, not by its class."""

    run_id: int
    conversation: Conversation
    client: ModelClient
    config: AgentConfig
    accepts: Accepts
    recorder: SessionRecorder | None
    turns: int
    compacted_turn: int | None
    plan: ThinkingPlan | None
    tools: ToolRunner

    @property
    def fixed_chars(self) -> int: ...
    @property
    def emit(self) -> Emit: ...
    def params(self) -> dict[str, object]: ...
    def checkpoint(self) -> None: ...
    def account(self, turn: Usage, *, prompt_tokens: int | None, of_conversation: bool = True) -> None: ...


async def fit_context(run: FittedRun) -> None:
    """Near the context window, shorten older tool results (oldest first; only where no thinking prefix is
    checked); still too big: compact. A request that would still not fit the window is not sent."""
    window = run.config.window
    estimate = run.conversation.estimated_prompt_tokens(run.fixed_chars)
    if estimate <= window * run.config.shorten_at:
        return
    target_chars = int(window * run.config.shorten_to * 4) - run.fixed_chars
    count = (
        0
        if run.accepts.preserved_thinking
        else run.conversation.shorten_old_results(target_chars=max(target_chars, 0))
    )
    if count:
        run.emit(
            Notice(
                level="info",
                message=f"{count} older tool result(s) were shortened to keep the conversation "
                "within the model's context window",
            )
        )
        estimate = run.conversation.estimated_prompt_tokens(run.fixed_chars)
    fraction = run.config.context_compact_fraction
    if (
        fraction is not None
        and estimate > window * fraction
        and len(run.conversation) >= 3
        and run.compacted_turn != run.turns - 1  # one compaction, then at least one turn
    ):
        await compact_run(run, automatic=True)
        estimate = run.conversation.estimated_prompt_tokens(run.fixed_chars)
    if estimate > window:
        raise RunFailed(
            f"CONTEXT_FULL: the conversation (~{estimate:,} tokens) does not fit {run.config.model}'s context "
            f"window ({window:,} tokens), so it was not sent; `%agent compact` summarises it, `%agent reset` "
            "starts over",
            retryable=False,
        )


async def compact_run(run: FittedRun, *, automatic: bool) -> bool:
    """Replace the conversation by the model's summary of it; False (and a warning) when that failed."""
    if run.plan is None:  # `%agent compact` between runs
        try:
            run.plan = run.config.thinking_plan()
        except ThinkingSettingError as refused:
            run.emit(Notice(level="warning", message=f"COMPACTION_FAILED: {refused}"))
            return False
    hooks = run.tools.dispatcher.hooks
    if refused := await pre_compact(hooks, automatic=automatic):
        run.emit(Notice(level="warning", message=f"a PreCompact hook stopped the compaction: {refused}"))
        return False
    run.conversation.repair()
    tokens_before = run.conversation.estimated_prompt_tokens(run.fixed_chars)
    messages_before = len(run.conversation)
    try:
        done = await compact(
            client=run.client,
            config=run.config,
            params=run.params(),
            conversation=run.conversation,
            tokens_before=tokens_before,
            before_replace=lambda done: _kept_before(run, done),
        )
    except CompactionFailed as failure:
        run.emit(
            Notice(
                level="warning",
                message=f"COMPACTION_FAILED: {failure}; the conversation was kept as it was "
                "(`%agent reset` starts over)",
            )
        )
        return False
    run.account(done.usage, prompt_tokens=None, of_conversation=False)
    run.compacted_turn = run.turns
    if done.cut_chars:
        run.emit(
            Notice(
                level="warning",
                message=f"{done.cut_chars:,} characters of the conversation were too large for the model to "
                "read and were cut before it summarised the rest (e.g. a huge file in a call)",
            )
        )
    if added := await post_compact(hooks, automatic=automatic, summary=done.summary, model=run.config.model):
        run.conversation.add_update([{"type": "text", "text": text} for text in added])
    run.checkpoint()
    run.emit(
        Compacted(
            tokens_before=tokens_before,
            tokens_after=run.conversation.estimated_prompt_tokens(run.fixed_chars),
            messages_before=messages_before,
            automatic=automatic,
        )
    )
    return True


def _kept_before(run: FittedRun, done: Compaction) -> None:
    """The file keeps the conversation as it was, then the record that it is being replaced."""
    run.checkpoint()
    if run.recorder is not None:
        run.recorder.compacted(
            run_id=run.run_id, tokens_before=done.tokens_before, summary_chars=len(done.summary)
        )
