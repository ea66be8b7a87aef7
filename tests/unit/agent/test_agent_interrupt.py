"""Interrupt (the Stop button, the kernel's Interrupt) at every point of a run, then a run that works."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from agent_testkit import HarnessFactory, assert_valid_request, result_text, tool_results

from jupyter_agent.agent import RunFinished, TextDelta, TextDone, ToolFinished, ToolRunning, ToolStarted
from jupyter_agent.agent.loop import INTERRUPT_NOTE
from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.tools import ApprovalRequest, Approve, tool

INTERRUPTED = "INTERRUPTED: interrupted by the user before it finished; nothing after this point ran"
LONG = "This answer streams slowly, word by word, so there is time to stop it. " * 5


def _last_user_texts(body: dict[str, object]) -> list[str]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return [b["text"] for b in messages[-1]["content"] if b["type"] == "text"]


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

    @tool
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
    future = h.start("first")  # the stop is queued behind the run's first step: it lands at its first await
    h.worker.stop_current()
    finished: RunFinished = future.result(timeout=10)
    assert (finished.reason, finished.turns) == ("interrupted", 1)
    assert h.run("second").reason == "end_turn"
    assert_valid_request(h.server.requests[-1])


def test_stop_when_idle_does_nothing(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("hi")])])
    h.worker.stop_current()
    assert h.run("hi").reason == "end_turn"
    h.worker.stop_current()
    assert h.session.conversation.messages[-1]["content"] == [{"type": "text", "text": "hi"}]
