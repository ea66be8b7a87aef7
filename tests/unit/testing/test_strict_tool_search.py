"""Anthropic's tool search tool on the strict scripted server: a scripted search is answered by the server over the
request's deferred tools (names, descriptions, argument names and descriptions) as `tool_reference`s, a bad pattern
is an error result, and what the API refuses is refused: a deferred search tool, a reference in the history to a
tool `tools` does not declare. A script that calls a deferred tool no search found is the script's mistake."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest
from strict_kit import Api

from jupyter_agent.testing import ServerToolUse, ToolUse, Turn

SEARCH = {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}
READ = {"name": "Read", "description": "Read a file.", "input_schema": {"type": "object"}}


def deferred(name: str, description: str, **properties: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return {"name": name, "description": description, "input_schema": schema, "defer_loading": True}


WEATHER = deferred("get_weather", "Tomorrow's forecast.", city={"type": "string"})
STOCKS = deferred(
    "quote", "A share price.", ticker={"type": "string", "description": "like AAPL; no weather"}
)
TOOLS = [READ, SEARCH, WEATHER, STOCKS]


def _searched(api: Any, pattern: str) -> list[dict[str, Any]]:
    server: Api = api(
        [Turn(blocks=[ServerToolUse(name="tool_search_tool_regex", input={"pattern": pattern})])]
    )
    return [block.model_dump(exclude_none=True) for block in server.create(tools=TOOLS).content]


def test_a_search_is_answered_with_references_to_matching_deferred_tools(api: Any) -> None:
    [call, result] = _searched(api, "(?i)weather")
    assert (call["type"], call["name"], call["input"]) == (
        "server_tool_use",
        "tool_search_tool_regex",
        {"pattern": "(?i)weather"},
    )
    assert result["type"] == "tool_search_tool_result" and result["tool_use_id"] == call["id"]
    # an argument's description is searched too: `quote` says "no weather" about its ticker
    assert result["content"] == {
        "type": "tool_search_tool_search_result",
        "tool_references": [
            {"type": "tool_reference", "tool_name": "get_weather"},
            {"type": "tool_reference", "tool_name": "quote"},
        ],
    }
    [_, none] = _searched(api, "^Read$")  # a tool that is not deferred is not searched
    assert none["content"]["tool_references"] == []


def test_a_bad_pattern_is_an_error_result(api: Any) -> None:
    [_, broken] = _searched(api, "(unclosed")
    assert broken["content"] == {
        "type": "tool_search_tool_result_error",
        "error_code": "invalid_tool_input",
        "error_message": "the pattern is not a valid Python regular expression: missing ), unterminated "
        "subpattern at position 0",
    }
    [_, long] = _searched(api, "a" * 201)
    assert long["content"]["error_code"] == "invalid_tool_input"
    assert long["content"]["error_message"] == "the pattern is 201 characters long; at most 200 are allowed"


def test_the_search_tool_cannot_be_deferred(api: Any) -> None:
    status, error = api().refused(tools=[READ, {**SEARCH, "defer_loading": True}, WEATHER])
    assert (status, error["message"]) == (
        400,
        "tools.1: the tool search tool cannot have defer_loading: true",
    )


def test_a_reference_to_an_undeclared_tool_is_refused(api: Any) -> None:
    history = [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "tool_search_tool_regex",
                    "input": {},
                },
                {
                    "type": "tool_search_tool_result",
                    "tool_use_id": "srvtoolu_1",
                    "content": {
                        "type": "tool_search_tool_search_result",
                        "tool_references": [{"type": "tool_reference", "tool_name": "gone"}],
                    },
                },
            ],
        },
        {"role": "user", "content": "go on"},
    ]
    status, error = api().refused(tools=TOOLS, messages=history)
    assert status == 400
    assert error["message"].startswith(
        "messages.1.content.1: Tool reference 'gone' has no corresponding tool definition"
    )


def test_a_script_cannot_call_a_deferred_tool_before_a_search_found_it(api: Any) -> None:
    server = api([Turn(blocks=[ToolUse(name="get_weather", input={"city": "Oslo"})])])
    with pytest.raises(anthropic.InternalServerError) as caught:
        server.create(tools=TOOLS)
    assert "'get_weather', a deferred tool no tool search has found in this conversation" in str(caught.value)
