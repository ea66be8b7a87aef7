"""The card a background Task's cell shows when its sub-agent ends: done with the report's first lines, failed
with the reason, stopped; a secret in the report is masked and the cut says where the rest is."""

from __future__ import annotations

import asyncio

from jupyter_agent.base.result import ToolResult
from jupyter_agent.masking import register
from jupyter_agent.ui.background_results import REPORT_LINES, ended_card
from jupyter_agent.ui.cards import ToolCard


def _ended(outcome: ToolResult | BaseException | None) -> ToolCard:
    """The card after a task that returned `outcome`, raised it, or (None) was cancelled."""

    async def work() -> ToolResult:
        if isinstance(outcome, BaseException):
            raise outcome
        if outcome is None:
            await asyncio.sleep(60)
        assert isinstance(outcome, ToolResult)
        return outcome

    async def finished() -> ToolCard:
        task = asyncio.create_task(work())
        await asyncio.sleep(0)
        if outcome is None:
            task.cancel()
        await asyncio.wait([task])
        card = ToolCard(
            call_id="toolu_1", name="Task", input={}, title="Task Look", status="done", duration=0.1
        )
        return ended_card(card, "agent_3", task)

    return asyncio.run(finished())


def test_a_finished_report_shows_its_first_lines_and_says_where_the_rest_is() -> None:
    secret = "sk-bg-" + "Hq4Zr8Lw2Xv9Tn3M"
    register("BACKGROUND_REPORT_KEY", secret)
    report = "\n".join([f"line {i} {secret}" for i in range(1, REPORT_LINES + 4)])
    card = _ended(ToolResult.ok(report))
    assert card.status == "done" and card.result is not None and card.duration is None
    shown = card.result.content
    assert "line 1 [redacted: BACKGROUND_REPORT_KEY]" in shown and secret not in shown
    assert f"line {REPORT_LINES + 1}" not in shown and "TaskOutput gives the whole report" in shown
    assert card.result.summary == "done in the background (agent_3)"


def test_a_failed_or_stopped_sub_agent_says_so() -> None:
    failed = _ended(ToolResult.error("EXECUTION_ERROR", "the sub-agent stopped before it finished (failed)."))
    assert failed.status == "error" and failed.result is not None
    assert failed.result.summary == "failed in the background (agent_3)"
    crashed = _ended(RuntimeError("connection lost"))
    assert crashed.status == "error" and crashed.result is not None
    assert "background sub-agent agent_3 failed: connection lost" in crashed.result.content
    stopped = _ended(None)
    assert stopped.status == "interrupted"
