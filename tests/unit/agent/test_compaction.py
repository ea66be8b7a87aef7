"""Compaction through the scripted server: the model summarises, work goes on from the summary, the prefix stays."""

from __future__ import annotations

import json
from pathlib import Path

from agent_testkit import HarnessFactory, assert_valid_request, context_text, texts

from jupyter_agent.agent import Notice
from jupyter_agent.agent.compact import CONTINUE_NOTE, SUMMARY_INSTRUCTION, SUMMARY_PREFIX
from jupyter_agent.agent.events import Compacted, ErrorEvent
from jupyter_agent.base.harness_texts import CONTEXT_HEADING
from jupyter_agent.sessions import load_session, session_markdown
from jupyter_agent.testing import Fault, Text, ToolUse, Turn
from jupyter_agent.tools import tool

OLD_ANSWER = "The March rows are dropped by the date parser. " * 80  # ~3,800 characters
SUMMARY = "Requests: find why March is missing. Decisions: the date parser drops March. Open: fix load.py."


@tool(read_only=True)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(read_only=True)
def echo(text: str) -> str:
    """Say how long the text is."""
    return f"{len(text)} characters"


@tool(read_only=True)
def dump() -> str:
    """Return a large table."""
    return "row\n" * 1500


#: Windows sized to the fixed prefix (a system prompt of ~1,900 tokens): the first exchange fits, the second does not.
SMALL_WINDOW = {"context_window": 6500, "shorten_at": 0.3, "shorten_to": 0.2, "context_compact_fraction": 0.4}


def test_near_the_window_the_next_request_holds_the_summary_not_the_old_turns(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    h = harness(
        [
            Turn(blocks=[Text(OLD_ANSWER)]),
            Turn(blocks=[Text(SUMMARY)]),
            Turn(blocks=[Text("Fixing it now.")]),
        ],
        tools=[add],
        session_options={"project": tmp_path / "nb.ipynb", "sessions_root": tmp_path / "store"},
        **SMALL_WINDOW,
    )
    h.run("why is March missing?")
    h.run("fix the loader")
    first, summary_request, after = h.server.requests

    assert summary_request["messages"][-1]["content"][-1] == {"type": "text", "text": SUMMARY_INSTRUCTION}
    assert summary_request["tool_choice"] == {"type": "none"}
    assert OLD_ANSWER in json.dumps(summary_request)

    assert_valid_request(after)
    [message] = after["messages"]
    assert message["role"] == "user"
    assert texts(message) == [SUMMARY_PREFIX + SUMMARY, "fix the loader"]
    assert context_text(after).startswith(CONTEXT_HEADING)  # told again in the new history
    assert OLD_ANSWER not in json.dumps(after)
    assert json.dumps(after["system"]) == json.dumps(first["system"])
    assert json.dumps(after["tools"]) == json.dumps(first["tools"])

    [compacted] = h.of(Compacted)
    assert compacted.automatic and compacted.messages_before == 3
    assert compacted.tokens_after < compacted.tokens_before

    assert h.session.recorder is not None
    saved = load_session(h.session.recorder.path)
    assert saved.messages == h.session.conversation.messages
    markdown = session_markdown(saved)
    assert "why is March missing?" in markdown and "Compaction 1" in markdown


def test_in_the_middle_of_a_run_the_history_restarts_from_the_summary_and_the_run_goes_on(
    harness: HarnessFactory,
) -> None:
    h = harness(
        [
            Turn(blocks=[Text(OLD_ANSWER)]),
            Turn(blocks=[ToolUse(name="dump", input={})]),
            Turn(blocks=[Text(SUMMARY)]),
            Turn(blocks=[Text("The table has 1500 rows.")]),
        ],
        tools=[dump],
        **{**SMALL_WINDOW, "context_window": 9000},
    )
    h.run("why is March missing?")
    h.run("dump the table")
    after = h.server.requests[-1]
    assert_valid_request(after)
    [message] = after["messages"]  # no earlier turn is kept behind the summary: its thinking would not pass
    assert texts(message) == [SUMMARY_PREFIX + SUMMARY, CONTINUE_NOTE]
    assert OLD_ANSWER not in json.dumps(after)
    assert h.session.conversation.messages[-1]["role"] == "assistant"


def test_a_failed_summary_keeps_the_conversation_and_says_so(harness: HarnessFactory) -> None:
    h = harness(
        [
            Turn(blocks=[Text(OLD_ANSWER)]),
            Turn(fault=Fault.error(error_type="invalid_request_error", message="no summary today")),
            Turn(blocks=[Text("Still here.")]),
        ],
        **SMALL_WINDOW,
    )
    h.run("why is March missing?")
    finished = h.run("fix the loader")
    assert finished.reason == "end_turn"
    assert any(n.message.startswith("COMPACTION_FAILED") for n in h.of(Notice))
    assert OLD_ANSWER in json.dumps(h.server.requests[-1]["messages"])
    assert not h.of(Compacted)


def test_compact_on_demand_summarises_now(harness: HarnessFactory) -> None:
    h = harness(
        [Turn(blocks=[Text("Short answer.")]), Turn(blocks=[Text(SUMMARY)]), Turn(blocks=[Text("ok")])]
    )
    h.run("hello")
    assert h.worker.submit(h.session.compact(emit=h.emit)).result(timeout=30) is True
    [compacted] = h.of(Compacted)
    assert not compacted.automatic
    h.run("and now?")
    assert texts(h.server.requests[-1]["messages"][0])[0] == SUMMARY_PREFIX + SUMMARY
    assert h.session.cost_usd > 0 and len(h.server.requests) == 3


def test_a_conversation_larger_than_the_window_is_cut_to_fit_before_it_is_summarised(
    harness: HarnessFactory,
) -> None:
    huge = "x" * 40_000  # ~10,000 tokens in a window of 4,000
    h = harness(
        [Turn(blocks=[ToolUse(name="echo", input={"text": huge})]), Turn(blocks=[Text(SUMMARY)])],
        tools=[echo],
        context_window=4000,
        context_compact_fraction=None,
    )
    h.run("write it")
    h.clear()
    assert h.worker.submit(h.session.compact(emit=h.emit)).result(timeout=30) is True
    summary_request = h.server.requests[-1]
    assert huge not in json.dumps(summary_request)
    assert len(json.dumps(summary_request)) < 4000 * 4
    assert "characters cut: too large to summarise" in json.dumps(summary_request)
    assert any("too large for the model to read and were cut" in n.message for n in h.of(Notice))
    [compacted] = h.of(Compacted)
    assert compacted.tokens_after < 4000
    assert huge not in json.dumps(h.session.conversation.messages)


def test_a_request_that_does_not_fit_the_window_is_never_sent(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("never")])], context_window=1000, context_compact_fraction=None)
    finished = h.run("y" * 8000)
    assert finished.reason == "error"
    assert h.server.requests == []
    [error] = h.of(ErrorEvent)
    assert error.message.startswith("CONTEXT_FULL: ")


def test_the_summary_instruction_asks_for_what_continuing_needs() -> None:
    for section in ("Requests", "Decisions", "Files and cells", "Errors", "Open items"):
        assert section in SUMMARY_INSTRUCTION
    assert "Do not call any tool" in SUMMARY_INSTRUCTION
