"""The scripted server answers like the real API: a recorded block of any type goes out as the API streams its kind
(a call's input in `input_json_delta` chunks, anything else whole), a refusal carries its `stop_details`, and a
turn that ran server tools reports cumulative usage with one `iterations` entry per server-side iteration."""

from __future__ import annotations

import json

from jupyter_agent.testing import Recorded, ScriptedUsage, ServerToolUse, Text, Turn, WebSearchResult
from jupyter_agent.testing.wire import full_message, stream_events

MCP_CALL = {
    "type": "mcp_tool_use",
    "id": "mcptoolu_01",
    "name": "ask_question",
    "server_name": "deepwiki",
    "input": {"repoName": "pydantic/pydantic-ai", "question": "What is it?"},
}
REQUEST = {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "hi"}]}


def test_a_recorded_call_streams_its_input_in_chunks_and_a_result_arrives_whole() -> None:
    result = {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_01", "is_error": False, "content": []}
    events = stream_events(Turn(blocks=[Recorded(MCP_CALL), Recorded(result)], chunk_size=8), REQUEST, 0)
    starts = [e["content_block"] for kind, e in events if kind == "content_block_start"]
    assert starts == [{**MCP_CALL, "input": {}}, result]
    chunks = [
        e["delta"]["partial_json"] for kind, e in events if kind == "content_block_delta" and e["index"] == 0
    ]
    assert len(chunks) > 1 and json.loads("".join(chunks)) == MCP_CALL["input"]
    assert full_message(Turn(blocks=[Recorded(MCP_CALL)]), REQUEST, 0)["content"] == [MCP_CALL]


def test_a_refusal_carries_its_stop_details_in_the_message_and_its_final_delta() -> None:
    details = {"type": "refusal", "category": "bio", "explanation": "Could enable dangerous lab methods."}
    turn = Turn(blocks=[Text("No.")], stop_reason="refusal", stop_details=details)
    assert full_message(turn, REQUEST, 0)["stop_details"] == details
    events = dict(stream_events(turn, REQUEST, 0))
    assert events["message_delta"]["delta"]["stop_details"] == details
    assert "stop_details" not in events["message_start"]["message"]


def test_a_server_tool_turn_reports_iterations_whose_sums_are_the_top_level_usage() -> None:
    turn = Turn(blocks=[ServerToolUse(input={"query": "q"}), WebSearchResult(results=()), Text("found")])
    usage = full_message(turn, REQUEST, 0)["usage"]
    first, second = usage["iterations"]
    assert first["type"] == second["type"] == "message"
    assert second["input_tokens"] > first["input_tokens"]  # the second reads the first's output and result
    for key in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
        assert usage[key] == first[key] + second[key]


def test_a_scripted_input_side_is_the_top_level_figure_and_a_plain_turn_has_no_iterations() -> None:
    scripted = Turn(
        blocks=[ServerToolUse(input={"query": "q"}), WebSearchResult(results=())],
        usage=ScriptedUsage(input_tokens=401_468),
    )
    usage = full_message(scripted, REQUEST, 0)["usage"]
    assert usage["input_tokens"] == 401_468 and "iterations" not in usage
    assert "iterations" not in full_message(Turn(blocks=[Text("hi")]), REQUEST, 0)["usage"]
