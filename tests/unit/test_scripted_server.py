"""The scripted Messages API server, driven by the real `anthropic` SDK over real HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest

from jupyter_agent.testing import (
    TEST_API_KEY,
    Fault,
    ScriptedServer,
    ScriptedUsage,
    ScriptFormatError,
    Text,
    Thinking,
    ToolUse,
    Turn,
    script_from_json,
)

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]
USER: list[anthropic.types.MessageParam] = [{"role": "user", "content": "hi"}]
MODEL = "claude-sonnet-5-5"


@pytest.fixture
def serve() -> Iterator[Any]:
    """`serve(script) -> (server, client)`; the servers stop at teardown."""
    servers: list[ScriptedServer] = []

    def start(
        script: Any, max_retries: int = 2, **options: Any
    ) -> tuple[ScriptedServer, anthropic.Anthropic]:
        server = ScriptedServer(script, **options).start()
        servers.append(server)
        return server, anthropic.Anthropic(base_url=server.url, api_key=TEST_API_KEY, max_retries=max_retries)

    yield start
    for server in servers:
        server.stop()


def stream_final(client: anthropic.Anthropic, **kwargs: Any) -> anthropic.types.Message:
    with client.messages.stream(model=MODEL, max_tokens=100, messages=USER, **kwargs) as stream:
        return stream.get_final_message()


def raw_sse(server: ScriptedServer, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """POST with a bare HTTP client and split the SSE body into (event, data) pairs."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("POST", "/v1/messages", json.dumps(body), {"content-type": "application/json"})
    response = conn.getresponse()
    assert response.status == 200
    assert response.getheader("content-type", "").startswith("text/event-stream")
    text = response.read().decode()
    conn.close()
    events: list[tuple[str, dict[str, Any]]] = []
    for chunk in text.strip().split("\n\n"):
        name_line, data_line = chunk.split("\n")
        events.append((name_line.removeprefix("event: "), json.loads(data_line.removeprefix("data: "))))
    return events


# --- streaming and non-streaming content ---------------------------------------------------------


def test_streamed_text_arrives_in_several_deltas_and_assembles_into_the_final_message(serve: Any) -> None:
    server, client = serve([Turn(blocks=[Text("The quick brown fox jumps over the lazy dog.")])])
    with client.messages.stream(model=MODEL, max_tokens=100, messages=USER) as stream:
        pieces = list(stream.text_stream)
        message = stream.get_final_message()
    assert len(pieces) > 1
    assert "".join(pieces) == "The quick brown fox jumps over the lazy dog."
    assert message.content[0].type == "text"
    assert message.content[0].text == "The quick brown fox jumps over the lazy dog."
    assert message.stop_reason == "end_turn"
    assert message.model == MODEL
    assert message.id.startswith("msg_")
    assert server.requests[0]["stream"] is True


def test_sse_body_follows_the_real_event_sequence_with_one_ping() -> None:
    turn = Turn(blocks=[Text("hello there"), ToolUse(name="Read", input={"file_path": "a.py"})], chunk_size=5)
    with ScriptedServer([turn]) as server:
        events = raw_sse(server, {"model": MODEL, "max_tokens": 10, "messages": USER, "stream": True})
    names = [name for name, _ in events]
    assert names == [
        "message_start",
        "content_block_start",
        "ping",
        *["content_block_delta"] * 3,  # "hello there" in chunks of 5
        "content_block_stop",
        "content_block_start",
        *["content_block_delta"] * 5,  # '{"file_path": "a.py"}' (21 chars) in chunks of 5
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert all(data["type"] == name for name, data in events)
    start = events[0][1]["message"]
    assert (start["role"], start["model"], start["content"], start["stop_reason"]) == (
        "assistant",
        MODEL,
        [],
        None,
    )
    assert start["usage"]["input_tokens"] > 0
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"
    assert events[-2][1]["usage"]["output_tokens"] > 0


def test_tool_use_input_is_assembled_from_input_json_deltas(serve: Any) -> None:
    call = ToolUse(name="Read", input={"file_path": "src/app.py", "offset": 10, "limit": 200})
    _, client = serve([Turn(blocks=[Text("Let me look."), call])])
    with client.messages.stream(model=MODEL, max_tokens=100, messages=USER) as stream:
        partials = [event.partial_json for event in stream if event.type == "input_json"]
        message = stream.get_final_message()
    assert len(partials) > 1
    tool = message.content[1]
    assert tool.type == "tool_use"
    assert (tool.name, tool.input, tool.id) == ("Read", dict(call.input), "toolu_01_0_1")
    assert message.stop_reason == "tool_use"


def test_non_streaming_create_returns_the_full_message_with_scripted_usage(serve: Any) -> None:
    usage = ScriptedUsage(
        input_tokens=1200, output_tokens=34, cache_creation_input_tokens=1000, cache_read_input_tokens=7
    )
    turn = Turn(
        blocks=[Text("done"), ToolUse(id="toolu_custom", name="Bash", input={"command": "ls"})], usage=usage
    )
    server, client = serve([turn])
    message = client.messages.create(model=MODEL, max_tokens=100, messages=USER)
    assert [b.type for b in message.content] == ["text", "tool_use"]
    assert message.content[1].type == "tool_use"
    assert (message.content[1].id, message.content[1].input) == ("toolu_custom", {"command": "ls"})
    assert message.stop_reason == "tool_use"
    assert message.usage.input_tokens == 1200
    assert message.usage.output_tokens == 34
    assert message.usage.cache_creation_input_tokens == 1000
    assert message.usage.cache_read_input_tokens == 7
    assert "stream" not in server.requests[0]


def test_streamed_usage_and_explicit_stop_reason_reach_the_final_message(serve: Any) -> None:
    usage = ScriptedUsage(input_tokens=50, output_tokens=9, cache_read_input_tokens=40)
    _, client = serve([Turn(blocks=[Text("cut off mid")], stop_reason="max_tokens", usage=usage)])
    message = stream_final(client)
    assert message.stop_reason == "max_tokens"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (50, 9)
    assert message.usage.cache_read_input_tokens == 40


def test_thinking_block_streams_its_text_and_the_servers_own_signature(serve: Any) -> None:
    _, client = serve([Turn(blocks=[Thinking("first I will read the file", signature="sig-1"), Text("ok")])])
    message = stream_final(client, thinking={"type": "adaptive", "display": "summarized"})
    thinking = message.content[0]
    assert thinking.type == "thinking"
    assert thinking.thinking == "first I will read the file"
    assert thinking.signature not in ("", "sig-1")  # the strict server signs it, bound to this conversation


def test_lenient_server_streams_the_scripted_thinking_and_signature_unchanged(serve: Any) -> None:
    # strict=False: the scripted signature is what a test of an Anthropic-compatible endpoint needs to see.
    _, client = serve(
        [Turn(blocks=[Thinking("first I will read the file", signature="sig-1"), Text("ok")])], strict=False
    )
    message = stream_final(client)
    thinking = message.content[0]
    assert thinking.type == "thinking"
    assert (thinking.thinking, thinking.signature) == ("first I will read the file", "sig-1")


def test_async_client_streams_a_scripted_turn(serve: Any) -> None:
    server, _ = serve([Turn(blocks=[Text("async hello"), ToolUse(name="Glob", input={"pattern": "*.py"})])])

    async def run() -> anthropic.types.Message:
        client = anthropic.AsyncAnthropic(base_url=server.url, api_key=TEST_API_KEY)
        async with (
            client,
            client.messages.stream(model=MODEL, max_tokens=100, messages=USER) as stream,
        ):
            return await stream.get_final_message()

    message = asyncio.run(run())
    assert message.content[0].type == "text"
    assert message.content[0].text == "async hello"
    assert message.content[1].type == "tool_use"
    assert message.content[1].input == {"pattern": "*.py"}


def test_delay_spaces_out_the_stream_events(serve: Any) -> None:
    _, client = serve([Turn(blocks=[Text("slow")], delay=0.02)])  # 7 events: 6 gaps
    started = time.monotonic()
    stream_final(client)
    assert time.monotonic() - started >= 6 * 0.02


def test_count_tokens_answers_an_estimate_without_consuming_a_turn(serve: Any) -> None:
    server, client = serve([Turn(blocks=[Text("after counting")])])
    counted = client.messages.count_tokens(model=MODEL, messages=USER)
    assert counted.input_tokens > 0
    assert stream_final(client).content[0].type == "text"
    assert [r.path for r in server.recorded] == ["/v1/messages/count_tokens", "/v1/messages"]
    assert len(server.requests) == 1


def test_unknown_path_is_a_404_in_anthropics_error_shape(serve: Any) -> None:
    server, client = serve([])
    with pytest.raises(anthropic.NotFoundError) as caught:
        client.models.list()
    assert isinstance(caught.value.body, dict)
    assert caught.value.body["type"] == "error"
    assert caught.value.body["error"]["type"] == "not_found_error"
    assert server.recorded[0].method == "GET"
    assert server.requests == []


# --- faults --------------------------------------------------------------------------------------


def test_rate_limit_429_is_retried_after_retry_after_then_succeeds(serve: Any) -> None:
    """How long the SDK waits is the SDK's business (benchmarks/retry_bench.py prints it against its own
    backoff); here: the 429 names its retry-after, and the SDK retries and succeeds."""
    server, client = serve([Turn(fault=Fault.rate_limit(retry_after=0.01)), Turn(blocks=[Text("ok")])])
    message = stream_final(client)
    assert message.content[0].type == "text"
    assert message.content[0].text == "ok"
    assert len(server.requests) == 2


def test_a_rate_limit_answers_429_with_its_retry_after_header(serve: Any) -> None:
    server, _ = serve([Turn(fault=Fault.rate_limit(retry_after=0.01))])
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    body = {"model": MODEL, "max_tokens": 10, "messages": USER, "stream": True}
    conn.request("POST", "/v1/messages", json.dumps(body), {"content-type": "application/json"})
    response = conn.getresponse()
    payload = json.loads(response.read())
    conn.close()
    assert response.status == 429
    assert response.getheader("retry-after") == "0.01"
    assert payload["error"]["type"] == "rate_limit_error"


def test_server_error_500_is_retried_by_the_sdk_then_succeeds(serve: Any) -> None:
    server, client = serve([Turn(fault=Fault.server_error()), Turn(blocks=[Text("ok")])])
    assert stream_final(client).stop_reason == "end_turn"
    assert len(server.requests) == 2


def test_overloaded_529_is_retried_by_the_sdk_then_succeeds(serve: Any) -> None:
    server, client = serve([Turn(fault=Fault.overloaded(retry_after=0.01)), Turn(blocks=[Text("ok")])])
    message = client.messages.create(model=MODEL, max_tokens=100, messages=USER)
    assert message.stop_reason == "end_turn"
    assert len(server.requests) == 2


def test_rate_limit_on_every_attempt_raises_rate_limit_error_after_max_retries(serve: Any) -> None:
    server, client = serve([Turn(fault=Fault.rate_limit())] * 3, max_retries=2)
    with pytest.raises(anthropic.RateLimitError) as caught:
        stream_final(client)
    assert caught.value.status_code == 429
    assert len(server.requests) == 3


@pytest.mark.parametrize(
    ("fault", "error_class", "status"),
    [
        (Fault.server_error(), anthropic.InternalServerError, 500),
        (Fault.overloaded(), anthropic.OverloadedError, 529),
        (
            Fault.error(error_type="invalid_request_error", message="prompt is too long"),
            anthropic.BadRequestError,
            400,
        ),
    ],
    ids=["500 is InternalServerError", "529 is OverloadedError", "400 is BadRequestError"],
)
def test_http_fault_without_retries_raises_the_sdk_error_class(
    serve: Any, fault: Fault, error_class: type[anthropic.APIStatusError], status: int
) -> None:
    _, client = serve([Turn(fault=fault)], max_retries=0)
    with pytest.raises(error_class) as caught:
        stream_final(client)
    assert caught.value.status_code == status
    assert isinstance(caught.value.body, dict)
    assert caught.value.body["error"]["message"] == fault.message


def test_cut_stream_raises_httpx2_remote_protocol_error_after_the_partial_text(serve: Any) -> None:
    turn = Turn(
        blocks=[Text("a long answer that never finishes")],
        chunk_size=4,
        fault=Fault.cut_stream(after_events=5),
    )
    server, client = serve([turn, Turn(blocks=[Text("unused")])])
    received: list[str] = []
    with (
        pytest.raises(httpx2.RemoteProtocolError, match="incomplete chunked read"),
        client.messages.stream(model=MODEL, max_tokens=100, messages=USER) as stream,
    ):
        received.extend(stream.text_stream)
    assert "".join(received) == "a long a"  # message_start, block start, ping, then two 4-character deltas
    assert len(server.requests) == 1  # a stream that already started is never retried by the SDK


def test_cut_stream_raises_the_same_error_on_the_async_client(serve: Any) -> None:
    server, _ = serve([Turn(blocks=[Text("partial")], fault=Fault.cut_stream(after_events=3))])

    async def run() -> None:
        client = anthropic.AsyncAnthropic(base_url=server.url, api_key=TEST_API_KEY)
        async with (
            client,
            client.messages.stream(model=MODEL, max_tokens=100, messages=USER) as stream,
        ):
            await stream.get_final_message()

    with pytest.raises(httpx2.RemoteProtocolError):
        asyncio.run(run())


def test_cut_before_a_non_streaming_response_is_a_connection_error(serve: Any) -> None:
    server, client = serve([Turn(fault=Fault.cut_stream())], max_retries=0)
    with pytest.raises(anthropic.APIConnectionError):
        client.messages.create(model=MODEL, max_tokens=100, messages=USER)
    assert len(server.requests) == 1


def test_stream_error_event_raises_api_status_error_carrying_the_error_type(serve: Any) -> None:
    server, client = serve([Turn(blocks=[Text("halfway there")], fault=Fault.stream_error(after_events=4))])
    with pytest.raises(anthropic.APIStatusError) as caught:
        stream_final(client)
    assert type(caught.value) is anthropic.APIStatusError  # the HTTP status was 200: no subclass applies
    assert isinstance(caught.value.body, dict)
    assert caught.value.body["error"]["type"] == "overloaded_error"
    assert len(server.requests) == 1


# --- malformed tool input: what the agent loop has to cope with ----------------------------------


def test_truncated_tool_json_is_completed_by_the_sdk_partial_parser_dropping_the_cut_value(
    serve: Any,
) -> None:
    _, client = serve(
        [Turn(blocks=[ToolUse(name="Write", raw_input='{"file_path": "a.py", "content": "pri')])]
    )
    message = stream_final(client)
    assert message.content[0].type == "tool_use"
    assert message.content[0].input == {"file_path": "a.py"}  # no error: "content" silently disappears


def test_tool_input_that_is_not_json_raises_value_error_while_streaming(serve: Any) -> None:
    _, client = serve([Turn(blocks=[ToolUse(name="Read", raw_input="not json at all")])])
    with pytest.raises(ValueError, match="Unable to parse tool parameter JSON from model"):
        stream_final(client)


def test_malformed_tool_json_in_a_non_streaming_response_arrives_as_the_raw_string(serve: Any) -> None:
    _, client = serve([Turn(blocks=[ToolUse(name="Read", raw_input='{"file_path": "a.py"')])])
    message = client.messages.create(model=MODEL, max_tokens=100, messages=USER)
    assert message.content[0].type == "tool_use"
    assert message.content[0].input == '{"file_path": "a.py"'


# --- script handling and recording --------------------------------------------------------------


def test_exhausted_script_fails_fast_with_a_message_naming_the_turn_count(serve: Any) -> None:
    server, client = serve([Turn(blocks=[Text("only one")])])
    stream_final(client)
    with pytest.raises(anthropic.InternalServerError, match="script exhausted after 1 turns"):
        stream_final(client)
    assert len(server.requests) == 2  # recorded, and not retried (x-should-retry: false)


def test_requests_are_recorded_in_order_with_system_tools_and_cache_control_intact(serve: Any) -> None:
    server, client = serve(
        [Turn(blocks=[ToolUse(name="Read", input={"file_path": "a.py"})]), Turn(blocks=[Text("ok")])]
    )
    system = [{"type": "text", "text": "You are a notebook agent.", "cache_control": {"type": "ephemeral"}}]
    tools = [
        {
            "name": "Read",
            "description": "Read a file.",
            "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}},
            "cache_control": {"type": "ephemeral"},
        }
    ]
    first = stream_final(client, system=system, tools=tools)
    tool = first.content[0]
    assert tool.type == "tool_use"
    history = [
        *USER,
        {"role": "assistant", "content": [tool.model_dump(include={"type", "id", "name", "input"})]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool.id, "content": "print(1)"}]},
    ]
    client.messages.create(model=MODEL, max_tokens=100, system=system, tools=tools, messages=history)
    first_body, second_body = server.wait_for_requests(2)
    assert first_body["system"] == system
    assert first_body["tools"] == tools
    assert second_body["messages"][2]["content"][0]["tool_use_id"] == "toolu_01_0_0"
    headers = server.recorded[0].headers
    assert TEST_API_KEY in (headers.get("x-api-key") or headers["authorization"])  # SDK 2.x sends a bearer
    assert "anthropic-version" in headers
    assert [r.index for r in server.recorded] == [0, 1]


def test_callable_script_receives_each_request_body_and_its_index(serve: Any) -> None:
    seen: list[tuple[int, str]] = []

    def script(body: dict[str, Any], index: int) -> Turn:
        seen.append((index, body["messages"][-1]["content"]))
        return Turn(blocks=[Text(f"echo {index}: {body['messages'][-1]['content']}")])

    _, client = serve(script)
    first = stream_final(client)
    second = client.messages.create(
        model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "again"}]
    )
    assert first.content[0].type == "text" and first.content[0].text == "echo 0: hi"
    assert second.content[0].type == "text" and second.content[0].text == "echo 1: again"
    assert seen == [(0, "hi"), (1, "again")]


def test_callable_script_that_raises_answers_500_naming_the_exception(serve: Any) -> None:
    def script(body: dict[str, Any], index: int) -> Turn:
        raise LookupError("no answer for this prompt")

    _, client = serve(script)
    with pytest.raises(anthropic.InternalServerError, match="script callable raised LookupError: no answer"):
        stream_final(client)


def test_wait_for_requests_returns_once_a_request_arrives_and_times_out_clearly(serve: Any) -> None:
    server, client = serve([Turn(blocks=[Text("late")])])
    with pytest.raises(TimeoutError, match=r"expected 1 messages request\(s\) within 0.05 s, got 0"):
        server.wait_for_requests(1, timeout=0.05)
    worker = threading.Thread(target=stream_final, args=(client,))
    worker.start()
    assert server.wait_for_requests(1, timeout=5)[0]["messages"] == USER
    worker.join()


def test_server_start_stop_is_reusable_as_a_context_manager_and_stop_is_idempotent() -> None:
    server = ScriptedServer([])
    with pytest.raises(RuntimeError, match="not started"):
        _ = server.url
    with server:
        assert server.url.startswith("http://127.0.0.1:")
    server.stop()


def test_turn_rejects_values_that_cannot_be_served() -> None:
    with pytest.raises(ValueError, match="chunk_size must be >= 1"):
        Turn(chunk_size=0)
    with pytest.raises(
        TypeError, match="takes Text, Thinking, ToolUse, ServerToolUse, WebSearchResult, Recorded, got str"
    ):
        Turn(blocks=["hi"])  # pyright: ignore[reportArgumentType]  (the wrong type on purpose)


# --- JSON scripts and the subprocess mode --------------------------------------------------------

JSON_SCRIPT: dict[str, Any] = {
    "turns": [
        {"fault": {"type": "rate_limit", "retry_after": 0.01}},
        {
            "blocks": [
                {"type": "text", "text": "Reading it."},
                {"type": "tool_use", "name": "Read", "input": {"file_path": "a.py"}, "id": "toolu_fixed"},
            ],
            "usage": {"input_tokens": 10, "output_tokens": 3},
        },
        {
            "blocks": [{"type": "text", "text": "done"}],
            "stop_reason": "end_turn",
            "delay": 0.0,
            "chunk_size": 2,
        },
        {"blocks": [{"type": "text", "text": "x"}], "fault": "overloaded"},
        {"fault": {"type": "cut_stream", "after_events": 2}},
        {"fault": {"type": "stall", "after_events": 3, "seconds": 5}},
        {"fault": {"type": "no_response", "seconds": 2.5}},
    ]
}


def test_json_script_builds_the_same_values_as_python() -> None:
    turns = script_from_json(JSON_SCRIPT)
    assert turns[0].fault == Fault.rate_limit(retry_after=0.01)
    assert turns[1].blocks == [
        Text("Reading it."),
        ToolUse(id="toolu_fixed", name="Read", input={"file_path": "a.py"}),
    ]
    assert turns[1].usage == ScriptedUsage(input_tokens=10, output_tokens=3)
    assert turns[1].resolved_stop_reason == "tool_use"
    assert turns[2].chunk_size == 2
    assert turns[3].fault == Fault.overloaded()
    assert turns[4].fault == Fault.cut_stream(after_events=2)
    assert turns[5].fault == Fault.stall(after_events=3, seconds=5)
    assert turns[6].fault == Fault.no_response(seconds=2.5)


def test_a_stall_keeps_the_connection_silent_until_the_server_stops() -> None:
    server = ScriptedServer(
        [Turn(blocks=[Text("half")], fault=Fault.stall(after_events=2, seconds=600))]
    ).start()
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    body = b'{"model": "claude-sonnet-5-5", "max_tokens": 5, "stream": true, "messages": [{"role": "user", "content": "hi"}]}'
    connection.request("POST", "/v1/messages", body=body, headers={"content-type": "application/json"})
    response = connection.getresponse()
    assert response.status == 200
    first = response.read1()  # the first events arrive; then nothing until the server stops
    assert b"message_start" in first
    stopper = threading.Timer(0.2, server.stop)
    stopper.start()
    rest = b""
    with contextlib.suppress(http.client.IncompleteRead, ConnectionError):
        while chunk := response.read1():
            rest += chunk
    stopper.join()
    assert b"message_stop" not in first + rest


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"turns": [{"blocks": [{"type": "txt", "text": "x"}]}]},
            "turns[0].blocks[0].type: 'txt' is not one of",
        ),
        ({"turns": [{"blokcs": []}]}, "turns[0]: unknown key(s) blokcs"),
        (
            [{"fault": {"type": "rate_limit", "retry_after": "soon"}}],
            "turns[0].fault.retry_after: expected a number",
        ),
        ([{"stop_reason": "done"}], "turns[0].stop_reason: 'done' is not one of"),
        ("turns", "script: expected a list of turns"),
    ],
    ids=["unknown block type", "typo in a key", "wrong value type", "unknown stop reason", "not a list"],
)
def test_json_script_errors_name_the_offending_path(data: object, message: str) -> None:
    with pytest.raises(ScriptFormatError) as caught:
        script_from_json(data)
    assert message in str(caught.value)


def test_subprocess_mode_prints_its_url_serves_the_script_and_records_requests(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(JSON_SCRIPT))
    record = tmp_path / "requests.jsonl"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter_agent.testing", "--script", str(script), "--record", str(record)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        first_line = proc.stdout.readline().strip()
        assert first_line.startswith("URL http://127.0.0.1:")
        client = anthropic.Anthropic(base_url=first_line.removeprefix("URL "), api_key=TEST_API_KEY)
        message = stream_final(client)  # 429 retried, then the tool call
        assert message.content[1].type == "tool_use"
        assert message.content[1].input == {"file_path": "a.py"}
    finally:
        proc.terminate()
        assert proc.wait(timeout=5) == 0
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert [(r["path"], r["index"]) for r in lines] == [("/v1/messages", 0), ("/v1/messages", 1)]
    assert lines[0]["body"]["messages"] == USER


def test_subprocess_mode_rejects_a_bad_script_with_exit_status_2(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text('[{"blokcs": []}]')
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "jupyter_agent.testing", "--script", str(script)],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert done.returncode == 2
    assert "turns[0]: unknown key(s) blokcs" in done.stderr


# --- the pytest plugin --------------------------------------------------------------------------


def test_plugin_fixture_points_the_environment_at_the_server_and_stops_it(
    pytester: pytest.Pytester, request: pytest.FixtureRequest
) -> None:
    pytester.makepyfile(
        """
        import os
        import anthropic
        import pytest
        from jupyter_agent.testing import Text, Turn

        URLS = []

        def test_client_from_environment_talks_to_the_script(scripted_server):
            server = scripted_server([Turn(blocks=[Text("from the script")])])
            URLS.append(server.url)
            assert os.environ["ANTHROPIC_BASE_URL"] == server.url
            message = anthropic.Anthropic().messages.create(
                model="claude-sonnet-5-5", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
            )
            assert message.content[0].text == "from the script"
            assert server.requests[0]["model"] == "claude-sonnet-5-5"

        def test_server_is_stopped_and_environment_restored_after_the_test():
            assert os.environ.get("ANTHROPIC_BASE_URL") != URLS[0]
            client = anthropic.Anthropic(base_url=URLS[0], api_key="x", max_retries=0)
            with pytest.raises(anthropic.APIConnectionError):
                client.messages.create(model="claude-sonnet-5-5", max_tokens=10, messages=[{"role": "user", "content": "hi"}])
        """
    )
    # Installed, the entry point loads the plugin; `-p` as well would register it twice.
    installed = request.config.pluginmanager.has_plugin("jupyter_agent")
    args = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest"]  # hypothesis re-imports for 2 s in here
    result = pytester.runpytest(*args, *([] if installed else ["-p", "jupyter_agent.testing.plugin"]))
    result.assert_outcomes(passed=2)
