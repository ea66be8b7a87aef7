"""Strict is the default; `strict=False` and `rejects` keep their behaviour; server-tool continuations; 413."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anthropic
import pytest
from strict_kit import raw_post

from jupyter_agent.testing import TEST_API_KEY, Text, Thinking, Turn

INVALID = "invalid_request_error"
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search"}
CLIENT_TOOL = {"name": "Read", "input_schema": {"type": "object"}}


def test_the_lenient_server_answers_what_the_strict_one_refuses(api: Any) -> None:
    odd = {
        "model": "claude-scripted",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "  "}]}],
        "tools": [{"name": "not a valid name", "input_schema": {"type": "array"}}],
    }
    lenient = api(strict=False)
    assert lenient.create(**odd).content[0].text == "ok"
    assert api().rejection(**odd)[:2] == (404, "not_found_error")


def test_the_lenient_server_sends_scripted_thinking_as_it_is(api: Any) -> None:
    server = api([Turn(blocks=[Thinking("why", signature="sig-1"), Text("ok")])], strict=False)
    block = server.create().content[0]
    assert (block.thinking, block.signature) == ("why", "sig-1")


def test_rejects_still_stands_for_an_endpoint_without_a_feature(api: Any) -> None:
    server = api(rejects=frozenset({"thinking", "count_tokens"}))
    assert server.rejection(thinking={"type": "adaptive"}) == (
        400,
        INVALID,
        "thinking: Extra inputs are not permitted",
    )
    with pytest.raises(anthropic.NotFoundError):
        server.count_tokens()


def test_a_request_over_32_mb_is_413(api: Any) -> None:
    server = api()
    body = {
        "model": "claude-sonnet-5-5",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "x" * (33 << 20)}],
    }
    status, answer = raw_post(server.server, body)
    assert (status, answer["error"]["type"]) == (413, "request_too_large")


def test_a_server_search_left_open_beside_a_client_tool_continues_with_the_tool_results(api: Any) -> None:
    messages = [
        {"role": "user", "content": "look it up and read the file"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "web_search",
                    "input": {"query": "q"},
                },
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "text"}]},
    ]
    server = api()
    assert server.create(messages=messages, tools=[WEB_SEARCH, CLIENT_TOOL]).content[0].text == "ok"
    assert server.rejection(messages=messages, tools=[CLIENT_TOOL]) == (
        400,
        INVALID,
        "messages.1.content: `web_search` tool use with id `srvtoolu_1` cannot be continued, but no `web_search` tool "
        "was provided",
    )


def test_the_subprocess_server_is_strict_unless_told_and_takes_a_signing_key(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps([{"blocks": [{"type": "thinking", "thinking": "t"}, {"type": "text", "text": "a"}]}] * 3)
    )

    def serve(*extra: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "jupyter_agent.testing", "--script", str(script), *extra],
            stdout=subprocess.PIPE,
            text=True,
        )

    key = "00" * 32
    signatures: list[str] = []
    for extra in (("--signing-key", key), ("--signing-key", key)):
        process = serve(*extra)
        try:
            assert process.stdout is not None
            url = process.stdout.readline().split()[1]
            client = anthropic.Anthropic(base_url=url, api_key=TEST_API_KEY, max_retries=0)
            history: list[Any] = [{"role": "user", "content": "hi"}]
            if signatures:  # the second process checks the first one's block: same key, still valid
                first = {"type": "thinking", "thinking": "", "signature": signatures[0]}
                history += [
                    {"role": "assistant", "content": [first, {"type": "text", "text": "a"}]},
                    {"role": "user", "content": "more"},
                ]
            message = client.messages.create(model="claude-sonnet-5-5", max_tokens=10, messages=history)
            block = message.content[0]
            assert block.type == "thinking"
            signatures.append(block.signature)
            with pytest.raises(anthropic.NotFoundError):
                client.messages.create(
                    model="claude-scripted", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
                )
        finally:
            process.terminate()
            process.wait(10)
    process = serve("--lenient")
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[1]
        client = anthropic.Anthropic(base_url=url, api_key=TEST_API_KEY, max_retries=0)
        message = client.messages.create(
            model="claude-scripted", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        )
        assert message.content[1].type == "text"
    finally:
        process.terminate()
        process.wait(10)


def test_a_refused_request_is_recorded_and_logged_with_its_error(
    api: Any, caplog: pytest.LogCaptureFixture
) -> None:
    server = api()
    server.rejection(model="claude-test")
    refused = server.server.recorded[-1]
    assert (refused.index, refused.refusal) == (None, "404 not_found_error: model: claude-test")
    assert "scripted server refused POST /v1/messages: 404 not_found_error: model: claude-test" in caplog.text
