"""Real responses, replayed: recorded Messages API answers (tests/fixtures/real_responses, each with its source
and licence) and every block type the SDK knows go back as they came, and their usage is read for what it
measures — cost from the sums, the conversation's size from the prompt (a paused web search is continued, not
refused as CONTEXT_FULL nor compacted)."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest
from agent_testkit import HarnessFactory, assert_valid_request
from anthropic.types.beta import BetaContentBlock

from jupyter_agent.agent.events import Compacted, ErrorEvent, Notice, ToolFinished, ToolStarted
from jupyter_agent.builtin_tools.web.search import WebSearchConfig, WebSearchTool
from jupyter_agent.sessions import load_session, session_markdown
from jupyter_agent.testing import (
    Recorded,
    ScriptedUsage,
    ServerToolUse,
    Text,
    Thinking,
    Turn,
    WebSearchResult,
)
from jupyter_agent.testing import recorded_turn as replayed

FIXTURES = Path(__file__).parents[2] / "fixtures" / "real_responses"


def recording(name: str) -> dict[str, Any]:
    fixture: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    assert {"repository", "path", "commit", "licence"} <= set(fixture["_source"])
    return fixture


def kept(block: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in block.items() if v is not None}


def assistant_turns(body: dict[str, Any]) -> list[list[dict[str, Any]]]:
    return [m["content"] for m in body["messages"] if m["role"] == "assistant"]


def test_a_recorded_paused_web_search_is_continued_verbatim_without_a_size_refusal_or_a_compaction(
    harness: HarnessFactory,
) -> None:
    paused, answer = recording("paused_web_search")["responses"]
    assert paused["stop_reason"] == "pause_turn" and paused["usage"]["input_tokens"] > 200_000
    h = harness(
        [replayed(paused), replayed(answer)],
        tools=[WebSearchTool(WebSearchConfig(max_uses=20))],
        model="claude-sonnet-4-5",
    )
    finished = h.run("run the searches, then summarise")

    assert finished.reason == "end_turn", h.of(ErrorEvent)
    assert not h.of(ErrorEvent) and not h.of(Compacted)
    assert not [n for n in h.of(Notice) if "CONTEXT_FULL" in n.message or "shortened" in n.message]
    first, continuation = h.server.requests
    assert_valid_request(continuation)
    [sent_back] = assistant_turns(continuation)
    recorded = [kept(b) for b in paused["content"]]
    assert len(sent_back) == len(recorded) == 27
    for block, came in zip(sent_back, recorded, strict=True):
        if came["type"] == "thinking":  # the strict server signed it for this conversation; its text is kept
            assert block["thinking"] == came["thinking"]
        else:
            assert block == came  # encrypted results, ids and the unanswered last call, unchanged
    # cost from the sums the API billed; the context from the package's own count, far below the sum
    assert finished.usage.input == paused["usage"]["input_tokens"] + answer["usage"]["input_tokens"]
    occupancy = h.session.status.estimated_tokens
    assert occupancy < 200_000 < paused["usage"]["input_tokens"]
    assert first["messages"][0]["content"][-1]["text"] == "run the searches, then summarise"


@pytest.mark.parametrize(
    ("name", "strict"),
    [
        ("mcp_tool_use", True),
        # Recorded redacted thinking is bound to the recording's conversation: the strict server, like the API,
        # does not let it into this one (the package repairs it the documented way), so it replays leniently.
        ("redacted_thinking", False),
        # The package declares no code execution, web fetch or advisor tool; the strict server (rightly) refuses
        # their calls in a conversation whose `tools` lack them, so these shapes replay on the lenient one.
        ("bash_code_execution", False),
        ("web_fetch", False),
        ("text_editor_code_execution", False),
        ("advisor_iterations", False),
    ],
)
def test_every_recorded_shape_is_shown_and_goes_back_exactly_as_it_came(
    harness: HarnessFactory, name: str, strict: bool
) -> None:
    response = recording(name)["responses"][0]
    h = harness(
        [replayed(response), Turn(blocks=[Text("next")])],
        model="claude-sonnet-4-5",
        server_options={"strict": strict},
    )
    assert h.run("first").reason == "end_turn", h.of(ErrorEvent)
    assert h.run("second").reason == "end_turn", h.of(ErrorEvent)
    [sent_back] = assistant_turns(h.server.requests[1])
    for block, came in zip(sent_back, [kept(b) for b in response["content"]], strict=True):
        assert block == came if came["type"] != "thinking" else block["thinking"] == came["thinking"]
    calls = {b["id"] for b in response["content"] if b["type"].endswith("tool_use")}
    started = {e.call_id for e in h.of(ToolStarted)}
    finished = {e.call_id: e for e in h.of(ToolFinished)}
    assert calls == started == set(finished)  # each call the API ran is a card, finished with its result
    assert not [e for e in finished.values() if "web search failed" in e.result.content]
    shown = "".join(getattr(e, "text", "") for e in h.events)
    for came in response["content"]:
        if came["type"] == "text" and came["text"].strip():
            assert came["text"].strip()[:40] in shown


def test_mcp_tool_use_keeps_its_real_arguments() -> None:
    response = recording("mcp_tool_use")["responses"][0]
    [call] = [b for b in response["content"] if b["type"] == "mcp_tool_use"]
    assert call["input"], "the recording's call has arguments"


def test_usage_iterations_give_the_prompt_and_the_sum_gives_the_cost(harness: HarnessFactory) -> None:
    response = recording("advisor_iterations")["responses"][0]
    usage = response["usage"]
    first = next(i for i in usage["iterations"] if i["type"] == "message")
    h = harness([replayed(response)], model="claude-sonnet-4-5", server_options={"strict": False})
    finished = h.run("ask the advisor")
    assert finished.usage.input == usage["input_tokens"]  # billed: the sum over the iterations
    prompt = first["input_tokens"] + first["cache_read_input_tokens"] + first["cache_creation_input_tokens"]
    assert h.session.conversation._last_prompt_tokens == prompt


def _samples() -> dict[str, dict[str, Any]]:
    """One block of each type the SDK's beta `ContentBlock` union knows: from the recordings where one holds
    it, else a block of that type's documented shape."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(FIXTURES.glob("*.json")):
        for response in json.loads(path.read_text(encoding="utf-8"))["responses"]:
            for block in response["content"]:
                found.setdefault(block["type"], kept(block))
    made: dict[str, dict[str, Any]] = {
        "tool_use": {"type": "tool_use", "id": "toolu_x1", "name": "lookup", "input": {"q": "a"}},
        "container_upload": {"type": "container_upload", "file_id": "file_011"},
        "mcp_tool_result": {
            "type": "mcp_tool_result",
            "tool_use_id": "mcptoolu_x1",
            "is_error": False,
            "content": [{"type": "text", "text": "42"}],
        },
        "code_execution_tool_result": {
            "type": "code_execution_tool_result",
            "tool_use_id": "srvtoolu_x1",
            "content": {
                "type": "code_execution_result",
                "stdout": "1\n",
                "stderr": "",
                "return_code": 0,
                "content": [],
            },
        },
        "tool_search_tool_result": {
            "type": "tool_search_tool_result",
            "tool_use_id": "srvtoolu_x2",
            "content": {"type": "tool_search_tool_search_result", "tool_references": []},
        },
        "fallback": {"type": "fallback", "model": "claude-sonnet-4-5"},
        "mcp_tool_listing": {"type": "mcp_tool_listing", "server_name": "docs", "tools": []},
    }
    return {**made, **found}


def _sdk_block_types() -> list[str]:
    union = typing.get_args(BetaContentBlock)[0]
    return sorted(
        typing.get_args(member.model_fields["type"].annotation)[0] for member in typing.get_args(union)
    )


SAMPLES = _samples()


def test_the_table_covers_every_block_type_of_the_sdk() -> None:
    missing = set(_sdk_block_types()) - set(SAMPLES)
    assert not missing, f"add a sample of {sorted(missing)} (a new block type of the SDK)"


@pytest.mark.parametrize("kind", _sdk_block_types())
def test_each_block_type_goes_back_as_it_came_input_included(harness: HarnessFactory, kind: str) -> None:
    sample = SAMPLES[kind]
    block = Thinking(sample["thinking"], sample["signature"]) if kind == "thinking" else Recorded(sample)
    # A server tool's call goes with its result (the API refuses one without the other once the turn ended).
    answer = (
        [Recorded(SAMPLES["advisor_tool_result"] | {"tool_use_id": sample["id"]})]
        if kind == "server_tool_use"
        else []
    )
    h = harness(
        [Turn(blocks=[block, *answer, Text("said")], stop_reason="end_turn"), Turn(blocks=[Text("next")])],
        server_options={"strict": False},
    )
    h.run("first")
    h.run("second")
    [sent_back] = assistant_turns(h.server.requests[1])
    assert sent_back[0] == sample


FUTURE = {"type": "hologram_tool_result", "tool_use_id": "srvtoolu_future", "content": {"frames": [1, 2]}}


def test_an_unknown_block_type_survives_save_resume_rewind_and_export_unchanged(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    saving = {"project": tmp_path / "analysis.ipynb", "sessions_root": tmp_path / "store"}
    first = harness(
        [Turn(blocks=[Recorded(FUTURE), Text("projected")])],
        server_options={"strict": False},
        session_options=saving,
    )
    first.run("project it")
    assert first.session.recorder is not None
    saved = load_session(first.session.recorder.path)
    assert FUTURE in [b for m in saved.messages for b in m["content"]]
    second = harness([Turn(blocks=[Text("again")])], server_options={"strict": False}, session_options=saving)
    second.session.resume(second.session.load_saved())
    second.run("and again")
    [sent_back] = assistant_turns(second.server.requests[0])
    assert sent_back[0] == FUTURE
    assert "projected" in session_markdown(saved)  # the export reads past a block it does not know
    conversation = second.session.conversation
    conversation.truncate(
        (len(conversation) - 2, 0)
    )  # a rewind of the last run keeps the earlier turn as it was
    assert FUTURE in [b for m in conversation.messages for b in m["content"]]


def test_the_scripted_server_reports_server_tool_turns_cumulatively_with_iterations(
    harness: HarnessFactory,
) -> None:
    turn = Turn(
        blocks=[ServerToolUse(input={"query": "q"}), WebSearchResult(results=()), Text("found nothing")],
        usage=ScriptedUsage(),
    )
    h = harness([turn], tools=[WebSearchTool()], model="claude-sonnet-4-5")
    finished = h.run("search")
    prompt = h.session.conversation._last_prompt_tokens
    assert prompt is not None and finished.usage.prompt_tokens > prompt  # two iterations: the sum is larger
