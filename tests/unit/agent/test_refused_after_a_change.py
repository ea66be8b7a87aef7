"""A request the API refuses (400) after the conversation changed length inside the run — an automatic compaction,
a rewind, a repair, shortened results — is taken back against the conversation as it is now: the cell shows the
API's own message and the next run works. A refusal of the model says its category and explanation and what the
user can do next."""

from __future__ import annotations

import pytest
from agent_testkit import HarnessFactory, assert_valid_request

from jupyter_agent.agent.conversation import Conversation
from jupyter_agent.agent.events import Compacted, ErrorEvent, Notice
from jupyter_agent.agent.stops import REFUSAL_NEXT
from jupyter_agent.base.result import ToolResult
from jupyter_agent.testing import Fault, Text, ToolUse, Turn

OLD_ANSWER = "The March rows are dropped by the date parser. " * 160  # ~7,500 characters
SUMMARY = "Requests: find why March is missing. Decisions: the date parser drops March."
API_MESSAGE = "messages.0.content.1.text: the scripted API refuses this request"
#: Small enough that the old answer crosses the compaction line, with room for the ~1,900-token fixed prefix.
SMALL_WINDOW = {
    "context_window": 6000,
    "shorten_at": 0.45,
    "shorten_to": 0.35,
    "context_compact_fraction": 0.45,
}


def test_a_400_right_after_an_automatic_compaction_shows_the_apis_message_and_the_next_run_works(
    harness: HarnessFactory,
) -> None:
    h = harness(
        [
            Turn(blocks=[Text(OLD_ANSWER)]),
            Turn(blocks=[Text(SUMMARY)]),  # the compaction's summary
            Turn(fault=Fault.error(error_type="invalid_request_error", message=API_MESSAGE)),
            Turn(blocks=[Text("Fixed.")]),
        ],
        **SMALL_WINDOW,
    )
    h.run("why is March missing?")
    failed = h.run("fix the loader")
    assert h.of(Compacted)
    assert failed.reason == "error"
    [error] = h.of(ErrorEvent)
    assert API_MESSAGE in error.message and "internal error" not in error.message
    h.clear()
    assert h.run("try again").reason == "end_turn", h.of(ErrorEvent)
    last = h.server.requests[-1]
    assert_valid_request(last)
    assert SUMMARY in str(last["messages"][0])  # the summary stayed


def _answered() -> Conversation:
    conversation = Conversation()
    conversation.add_user_text("first")
    conversation.add_assistant([{"type": "tool_use", "id": "t1", "name": "dump", "input": {}}])
    conversation.add_tool_results([("t1", ToolResult.ok("r" * 4000))])
    conversation.add_assistant([{"type": "text", "text": "done"}])
    return conversation


def _compact(conversation: Conversation) -> None:
    conversation.replace(
        [{"role": "user", "content": [{"type": "text", "text": "summary"}, {"type": "text", "text": "go"}]}]
    )


def _rewind(conversation: Conversation) -> None:
    conversation.truncate((1, 1))


def _repair(conversation: Conversation) -> None:
    conversation.truncate((2, 1))  # the tool_use's result is gone: repair answers it
    conversation.repair()


def _shorten(conversation: Conversation) -> None:
    conversation.shorten_old_results(target_chars=0, keep_last=0)


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(_compact, id="automatic compaction"),
        pytest.param(_rewind, id="rewind"),
        pytest.param(_repair, id="repair"),
        pytest.param(_shorten, id="shortening"),
    ],
)
def test_taking_back_reads_the_runs_start_against_the_conversation_as_it_is_now(change: object) -> None:
    conversation = _answered()
    start, generation = conversation.position(), conversation.generation
    conversation.add_user_text("the run's request")
    assert callable(change)
    change(conversation)
    before = conversation.messages
    answered = conversation.last_assistant_index()
    conversation.take_back(start, generation=generation)  # never a ValueError
    after = conversation.messages
    assert after[: answered + 1] == before[: answered + 1]  # nothing a response has seen is cut
    assert not conversation.unanswered_tool_uses()
    if answered < 0:  # only the compaction's summary is left: it stays
        assert after == before
    else:
        assert "the run's request" not in str(after)


def test_a_refusal_shows_its_category_and_explanation_and_what_to_do_next(harness: HarnessFactory) -> None:
    details = {
        "type": "refusal",
        "category": "cyber",
        "explanation": "The request could enable development of malware.",
    }
    h = harness([Turn(blocks=[Text("I can't help with that.")], stop_reason="refusal", stop_details=details)])
    finished = h.run("write a worm")
    assert finished.reason == "refusal"
    [notice] = [n for n in h.of(Notice) if "declined" in n.message]
    assert "category 'cyber'" in notice.message
    assert "The request could enable development of malware" in notice.message
    assert REFUSAL_NEXT in notice.message and "%agent rewind" in notice.message


def test_a_refusal_without_details_still_says_what_to_do_next(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("No.")], stop_reason="refusal")])
    h.run("something")
    [notice] = [n for n in h.of(Notice) if "declined" in n.message]
    assert "(refusal)" in notice.message and REFUSAL_NEXT in notice.message


def test_a_refused_request_after_a_tool_call_is_taken_back_and_the_next_run_works(
    harness: HarnessFactory,
) -> None:
    h = harness(
        [
            Turn(blocks=[ToolUse(name="missing_tool", input={})]),
            Turn(fault=Fault.error(error_type="invalid_request_error", message=API_MESSAGE)),
            Turn(blocks=[Text("ok")]),
        ]
    )
    assert h.run("go").reason == "error"
    assert API_MESSAGE in h.of(ErrorEvent)[0].message
    assert h.run("again").reason == "end_turn"
    assert_valid_request(h.server.requests[-1])
