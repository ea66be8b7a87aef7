"""The pure parts of the MCP bridge: names, annotation mapping, the schema the model sees, argument
validation messages (pinned), and server settings."""

from __future__ import annotations

import re
from typing import Any

import mcp.types as mcp_types
import pytest

from jupyter_agent.builtin_tools.mcp import (
    ConfigError,
    HttpServer,
    StdioServer,
    map_annotations,
    parse_server,
    tool_name,
)
from jupyter_agent.builtin_tools.mcp.schema import arguments_model, model_facing_schema
from jupyter_agent.tools import ToolAnnotations, ToolResult
from jupyter_agent.tools.validation import validate


@pytest.mark.parametrize(
    ("hints", "expected"),
    [
        pytest.param(None, ToolAnnotations(), id="no hints: destructive, asks"),
        pytest.param(
            mcp_types.ToolAnnotations(read_only_hint=True),
            ToolAnnotations(read_only=True, destructive=False, open_world=True),
            id="read-only is never destructive",
        ),
        pytest.param(
            mcp_types.ToolAnnotations(destructive_hint=False, idempotent_hint=True, open_world_hint=False),
            ToolAnnotations(destructive=False, idempotent=True, open_world=False),
            id="additive and idempotent",
        ),
        pytest.param(
            mcp_types.ToolAnnotations(title="Deleter"),
            ToolAnnotations(destructive=True, open_world=True),
            id="hints left out take the MCP defaults",
        ),
    ],
)
def test_hints_map_to_annotations(hints: mcp_types.ToolAnnotations | None, expected: ToolAnnotations) -> None:
    assert map_annotations(hints) == expected


def test_tool_names_are_api_safe_and_unique_when_cut() -> None:
    assert tool_name("git hub", "search.issues") == "mcp__git_hub__search_issues"
    long_a, long_b = tool_name("srv", "x" * 80 + "a"), tool_name("srv", "x" * 80 + "b")
    assert len(long_a) == 64 and long_a != long_b


def test_the_model_sees_the_servers_schema_closed_where_it_lists_properties() -> None:
    server_schema: dict[str, Any] = {
        "type": "object",
        "title": "searchArguments",
        "properties": {
            "query": {"type": "string", "title": "Query"},
            "filters": {"type": "object", "properties": {"label": {"type": "string"}}},
            "extra": {"type": "object"},
            "title": {"type": "string"},
            "mixed": {"allOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {}}}]},
        },
        "required": ["query"],
    }
    assert model_facing_schema(server_schema) == {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "filters": {
                "type": "object",
                "properties": {"label": {"type": "string"}},
                "additionalProperties": False,
            },
            "extra": {"type": "object"},
            "title": {"type": "string"},
            "mixed": {"allOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {}}}]},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    assert "title" in server_schema  # the server's copy is untouched
    assert model_facing_schema({"type": "object", "properties": {}}) == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }  # no arguments


@pytest.mark.parametrize("root", [{"type": "object"}, {}], ids=["a bare object root", "an empty schema"])
def test_a_root_that_lists_no_properties_accepts_any_object(root: dict[str, Any]) -> None:
    schema = model_facing_schema(root)
    assert schema == {"type": "object"}
    arguments = arguments_model("mcp__s__t", schema).model_validate({"anything": [1, {"deep": True}], "n": 2})
    assert arguments.arguments() == {"anything": [1, {"deep": True}], "n": 2}


def test_invalid_arguments_are_named_by_json_pointer_with_the_fix() -> None:
    schema = model_facing_schema(
        {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 2},
                "limit": {"type": "integer", "maximum": 50},
                "sort": {"enum": ["new", "old"]},
                "tags": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"name": {"type": "string"}}},
                },
            },
            "required": ["query"],
        }
    )
    model = arguments_model("mcp__gh__search", schema)
    result = validate(
        "mcp__gh__search",
        model,
        {"limit": 99, "sort": "top", "tags": [{"name": "bug", "color": "red"}], "q": "x"},
    )
    assert isinstance(result, ToolResult)
    assert result.content == (
        "INVALID_ARGS: mcp__gh__search was called with invalid arguments; fix them and call it again:\n"
        "- /query: expected a value (required). Fix: add `query`\n"
        '- /q: expected no such field, got "x". Fix: remove `q` (allowed fields: query, limit, sort, tags)\n'
        "- /limit: expected less than or equal to 50, got 99. Fix: set `limit` to less than or equal to 50\n"
        "- /sort: expected one of 'new', 'old', got \"top\". Fix: set `sort` to one of 'new', 'old'\n"
        '- /tags/0/color: expected no such field, got "red". Fix: remove `color` (allowed fields: name)'
    )


def test_allowed_fields_under_a_malformed_properties_entry_are_none_rather_than_a_crash() -> None:
    model = arguments_model("t", {"type": "object", "properties": {"a": {"properties": ["b"]}}})
    assert model.allowed_fields_at(()) == ["a"]
    assert model.allowed_fields_at(("a", "b")) == []


def test_valid_arguments_pass_through_unchanged_and_numbers_interchange() -> None:
    model = arguments_model(
        "t", model_facing_schema({"type": "object", "properties": {"n": {"type": "integer"}}})
    )
    parsed = validate("t", model, {"n": 3.0})
    assert not isinstance(parsed, ToolResult)
    assert parsed.model_dump() == {"n": 3.0}


def test_stdio_and_http_settings_parse_with_environment_expansion() -> None:
    environ = {"API_TOKEN": "t0k", "HOME": "/home/me"}
    stdio = parse_server(
        {"command": "npx", "args": ["-y", "server", "${HOME}/data"], "env": {"K": "${API_TOKEN}"}}, environ
    )
    assert stdio == StdioServer(command="npx", args=["-y", "server", "/home/me/data"], env={"K": "t0k"})
    http = parse_server(
        {"type": "http", "url": "https://x/mcp", "headers": {"Authorization": "Bearer ${API_TOKEN}"}}, environ
    )
    assert http == HttpServer(url="https://x/mcp", headers={"Authorization": "Bearer t0k"})
    assert parse_server({"command": "s", "env": {"LEVEL": "${LEVEL:-info}"}}, environ) == StdioServer(
        command="s", env={"LEVEL": "info"}
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        pytest.param(
            {"command": "a", "url": "b"}, 'give either "command" (stdio) or "url" (HTTP), not both', id="both"
        ),
        pytest.param({"type": "sse", "url": "u"}, "the SSE transport is not supported", id="sse"),
        pytest.param({"command": "a", "argz": []}, "argz: Extra inputs are not permitted", id="unknown key"),
        pytest.param(
            {"command": "a", "args": "x y"}, "args: Input should be a valid list", id="args not a list"
        ),
        pytest.param("npx server", "expected a dict like", id="not a dict"),
    ],
)
def test_bad_settings_say_what_is_wrong(raw: object, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_server(raw, {})


def test_field_names_with_slash_or_tilde_are_escaped_in_the_json_pointer() -> None:
    """RFC 6901: `~` becomes `~0` first, then `/` becomes `~1`; the other order would report `a/b` as `a~01b`."""
    model = arguments_model(
        "t",
        model_facing_schema(
            {"type": "object", "properties": {"a/b": {"type": "integer"}, "a~b": {"type": "integer"}}}
        ),
    )
    result = validate("t", model, {"a/b": "x", "a~b": "y"})
    assert isinstance(result, ToolResult)
    lines = result.content.splitlines()[1:]
    assert [line.split(":")[0] for line in lines] == ["- /a~1b", "- /a~0b"]
