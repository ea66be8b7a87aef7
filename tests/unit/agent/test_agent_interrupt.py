"""Interrupt (the Stop button, the kernel's Interrupt) at every point of a run, then a run that works."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from agent_testkit import HarnessFactory, assert_valid_request, result_text, texts, tool_results

from jupyter_agent.agent import (
    RunFinished,
    TextDelta,
    TextDone,
    ToolFinished,
    ToolProgress,
    ToolRunning,
    ToolStarted,
)
from jupyter_agent.agent.loop import INTERRUPT_NOTE
from jupyter_agent.base.errors import ToolError
from jupyter_agent.base.journal import FileChange
from jupyter_agent.base.sandbox import atomic_write
from jupyter_agent.base.stopping import StopSignal, run_context
from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.tools import ApprovalRequest, Approve, ToolContext, tool

INTERRUPTED = "INTERRUPTED: interrupted by the user before it finished; nothing after this point ran"
LONG = "This answer streams slowly, word by word, so there is time to stop it. " * 5


def _last_user_texts(body: dict[str, object]) -> list[str]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return texts(messages[-1])


def test_stop_during_the_stream_keeps_the_partial_text_and_the_next_run_works(
    harness: HarnessFactory,
) -> None:
    h = harness([Turn(blocks=[Text(LONG)], delay=0.02, chunk_size=8), Turn(blocks=[Text("Sure.")])])
    future = h.start("tell me a story")
    h.wait_for(TextDelta)
    h.worker.stop_current()
    finished: RunFinished = future.result(timeout=10)
    assert finished.reason == "interrupted"
    assert h.of(TextDone) == [TextDone()]  # the open text block is closed for the UI
    shown = "".join(e.text for e in h.of(TextDelta))
    stored = h.session.conversation.messages[1]
    assert stored["role"] == "assistant"
    assert stored["content"] == [{"type": "text", "text": shown}]  # kept as the user saw it
    assert 0 < len(shown) < len(LONG)

    again = h.run("shorter please")
    assert again.reason == "end_turn"
    body = h.server.requests[1]
    assert_valid_request(body)
    assert _last_user_texts(body) == [INTERRUPT_NOTE, "shorter please"]


def test_stop_before_any_token_leaves_the_request_and_a_note(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("late")], delay=2), Turn(blocks=[Text("ok")])])
    future = h.start("first")
    h.server.wait_for_requests(1)
    h.worker.stop_current()
    assert future.result(timeout=10).reason == "interrupted"
    h.run("second")
    body = h.server.requests[1]
    assert_valid_request(body)
    assert _last_user_texts(body) == ["first", INTERRUPT_NOTE, "second"]


def test_stop_after_a_streamed_tool_call_answers_it_as_interrupted(harness: HarnessFactory) -> None:
    @tool(read_only=True)
    def look(path: str) -> str:
        """Look at a path."""
        return path

    slow = Turn(blocks=[ToolUse(name="look", input={"path": "a"}), Text(LONG)], delay=0.02, chunk_size=8)
    h = harness([slow, Turn(blocks=[Text("ok")])], tools=[look])
    future = h.start("look")
    h.wait_for(ToolStarted)
    h.worker.stop_current()
    assert future.result(timeout=10).reason == "interrupted"
    [card] = h.of(ToolFinished)
    assert (card.call_id, card.result.content) == ("toolu_01_0_0", INTERRUPTED)
    assert h.of(ToolRunning) == []  # it never ran
    assert (card.kind, card.title, card.duration) == (
        "read",
        "",
        None,
    )  # its kind kept; no time, it never ran

    h.run("go on")
    body = h.server.requests[1]
    assert_valid_request(body)
    assert [result_text(r) for r in tool_results(body)] == [INTERRUPTED]


def test_stop_during_a_tool_answers_it_and_keeps_finished_results(harness: HarnessFactory) -> None:
    never = asyncio.Event()

    @tool(read_only=True)
    def quick() -> str:
        """Return at once."""
        return "quick result"

    @tool(kind="execute")
    async def hang() -> str:
        """Wait for ever."""
        await never.wait()
        return "unreachable"

    calls = [ToolUse(name="quick"), ToolUse(name="hang")]
    h = harness(
        [Turn(blocks=calls), Turn(blocks=[Text("ok")])], tools=[quick, hang], mode="bypassPermissions"
    )
    future = h.start("run both")
    h.wait_for(ToolRunning, lambda e: e.title == "hang")
    h.worker.stop_current()
    assert future.result(timeout=10).reason == "interrupted"
    by_call = {e.call_id: e.result.content for e in h.of(ToolFinished)}
    assert by_call == {"toolu_01_0_0": "quick result", "toolu_01_0_1": INTERRUPTED}
    stopped = h.of(ToolFinished)[-1]
    assert stopped.kind == "execute" and stopped.title == ""  # the card keeps the tool's icon and its title
    assert stopped.duration is not None and stopped.duration > 0  # the time it ran before the stop

    h.run("what happened?")
    body = h.server.requests[1]
    assert_valid_request(body)
    assert [result_text(r) for r in tool_results(body)] == ["quick result", INTERRUPTED]
    assert _last_user_texts(body) == [INTERRUPT_NOTE, "what happened?"]


def test_stop_while_waiting_for_approval_answers_the_call(harness: HarnessFactory) -> None:
    asked = threading.Event()

    @tool
    def delete_all() -> str:
        """Delete everything."""
        return "deleted"

    async def never_answers(request: ApprovalRequest) -> Approve:
        asked.set()
        await asyncio.Event().wait()
        return Approve()

    h = harness([Turn(blocks=[ToolUse(name="delete_all")]), Turn(blocks=[Text("ok")])], tools=[delete_all])
    future = h.start("clean up", approver=never_answers)
    assert asked.wait(10)
    h.worker.stop_current()
    assert future.result(timeout=10).reason == "interrupted"
    [card] = h.of(ToolFinished)
    assert card.result.error_code == "INTERRUPTED"

    h.run("never mind")
    body = h.server.requests[1]
    assert_valid_request(body)
    assert [result_text(r) for r in tool_results(body)] == [INTERRUPTED]


def test_stop_right_after_submitting_still_ends_with_a_summary(harness: HarnessFactory) -> None:
    def quick(_body: dict[str, Any], _index: int) -> Turn:
        return Turn(blocks=[Text("ok")])

    h = harness(quick)
    future = h.start("first")
    h.worker.stop_current()  # seen at the run's first check (no request), or its first await (the request)
    finished: RunFinished = future.result(timeout=10)
    assert finished.reason == "interrupted" and finished.turns in (0, 1)
    assert h.run("second").reason == "end_turn"
    assert len(h.server.requests) <= finished.turns + 1  # a request cancelled while connecting never arrives
    assert_valid_request(h.server.requests[-1])
    assert_valid_request(h.server.requests[-1])


def test_stop_when_idle_does_nothing(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("hi")])])
    h.worker.stop_current()
    assert h.run("hi").reason == "end_turn"
    h.worker.stop_current()
    assert h.session.conversation.messages[-1]["content"] == [{"type": "text", "text": "hi"}]


def test_a_stop_whose_cancellation_is_lost_still_ends_the_run_before_the_next_request(
    harness: HarnessFactory,
) -> None:
    @tool(read_only=True)
    async def stubborn() -> str:
        """Wait, and finish anyway when cancelled (as Python 3.11's wait_for does when the result arrives
        together with the cancellation)."""
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            return "finished anyway"
        return "slept"

    h = harness(
        [
            Turn(blocks=[ToolUse(name="stubborn")]),
            Turn(blocks=[Text("must not be asked")]),
            Turn(blocks=[Text("ok")]),
        ],
        tools=[stubborn],
    )
    future = h.start("wait")
    h.wait_for(ToolRunning, lambda e: e.title == "stubborn")
    h.worker.stop_current()
    finished: RunFinished = future.result(timeout=10)
    assert finished.reason == "interrupted"
    assert len(h.server.requests) == 1
    h.run("next")
    body = h.server.requests[1]
    assert_valid_request(body)
    assert [result_text(r) for r in tool_results(body)] == ["finished anyway"]
    assert _last_user_texts(body) == [INTERRUPT_NOTE, "next"]


def test_a_call_stopped_after_its_change_landed_is_told_that_it_landed(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    never = asyncio.Event()

    @tool
    async def save_then_wait(ctx: ToolContext) -> str:
        """Write a file, then wait (a tool whose change landed before the stop)."""
        target = tmp_path / "saved.txt"
        target.write_text("saved\n")
        ctx.journal.record(
            FileChange(
                path=target, before=None, after=b"saved\n", tool="save_then_wait", call_id=ctx.tool_use_id
            )
        )
        await never.wait()
        return "unreachable"

    h = harness(
        [Turn(blocks=[ToolUse(name="save_then_wait")]), Turn(blocks=[Text("ok")])],
        tools=[save_then_wait],
        mode="bypassPermissions",
    )
    future = h.start("save")
    h.wait_for(ToolRunning, lambda e: e.title == "save_then_wait")
    h.worker.stop_current()
    assert future.result(timeout=10).reason == "interrupted"
    [finished] = [e for e in h.of(ToolFinished) if e.name == "save_then_wait"]
    assert finished.result.content == (
        "INTERRUPTED: interrupted by the user after its change was made: 'saved.txt' was written (that stays; "
        "`%agent undo` reverts it); nothing after this point ran"
    )


def test_a_write_the_user_stopped_before_its_rename_leaves_the_file_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_text("old\n")
    signal = StopSignal()
    signal.request()
    with pytest.raises(ToolError) as stopped:
        run_context(signal).run(atomic_write, target, b"new\n")
    assert stopped.value.code == "INTERRUPTED"
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.md"]


def test_a_calls_progress_becomes_an_event_of_that_call(harness: HarnessFactory) -> None:
    @tool(read_only=True)
    def indexer(ctx: ToolContext) -> str:
        """Index, reporting progress."""
        assert ctx.progress is not None
        ctx.progress("1/2", "half way")
        return "indexed"

    h = harness(
        [Turn(blocks=[ToolUse(name="indexer"), ToolUse(name="indexer")]), Turn(blocks=[Text("ok")])],
        tools=[indexer],
    )
    assert h.run("index").reason == "end_turn"
    assert sorted(e.call_id for e in h.of(ToolProgress)) == ["toolu_01_0_0", "toolu_01_0_1"]
    assert {(e.done, e.message) for e in h.of(ToolProgress)} == {("1/2", "half way")}
