"""TodoWrite: replaces the session's list, at most one item in progress, runs without asking in every mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import ToolHarness

from jupyter_agent.base.result import ToolResult
from jupyter_agent.builtin_tools.workflow import TodoWrite, todo_list
from jupyter_agent.permissions.policy import Mode


def _tools(tmp_path: Path, mode: Mode = "default") -> ToolHarness:
    """TodoWrite behind the harness's approver, which refuses everything: it must run without asking."""
    return ToolHarness(tmp_path, [TodoWrite()], mode=mode)


def _call(tools: ToolHarness, todos: Any) -> ToolResult:
    return tools.call("TodoWrite", todos=todos, call_id="t1")


def _item(content: str, status: str) -> dict[str, str]:
    return {"content": content, "status": status, "activeForm": content.replace("Run", "Running")}


@pytest.mark.parametrize("mode", ["default", "plan", "acceptEdits"])
def test_each_call_replaces_the_whole_list_without_asking(tmp_path: Path, mode: Mode) -> None:
    tools = _tools(tmp_path, mode)
    first = _call(tools, [_item("Run the loader", "in_progress"), _item("Run the tests", "pending")])
    assert not first.is_error, first.content
    second = _call(tools, [_item("Run the loader", "completed"), _item("Run the tests", "in_progress")])
    assert second.summary == "todos: 1/2 done"
    assert second.data["todos"] == [
        {"content": "Run the loader", "status": "completed", "activeForm": "Running the loader"},
        {"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"},
    ]
    assert todo_list(tools.ctx).text() == "[x] Run the loader\n[>] Running the tests"
    assert todo_list(tools.ctx).version == 2


def test_two_items_in_progress_are_refused_and_the_list_is_kept(tmp_path: Path) -> None:
    tools = _tools(tmp_path)
    _call(tools, [_item("Run a", "in_progress")])
    result = _call(
        tools, [_item("Run a", "in_progress"), _item("Run b", "pending"), _item("Run c", "in_progress")]
    )
    assert result.error_code == "INVALID_ARGS"
    assert result.content.startswith("INVALID_ARGS: items 0, 2 are all in_progress; at most one item")
    assert [i.path for i in result.issues] == ["/todos/2/status"]
    assert todo_list(tools.ctx).text() == "[>] Running a"


def test_items_need_content_a_known_status_and_an_active_form(tmp_path: Path) -> None:
    tools = _tools(tmp_path)
    result = _call(tools, [{"content": "", "status": "doing"}])
    assert result.error_code == "INVALID_ARGS"
    for pointer in ("/todos/0/content", "/todos/0/status", "/todos/0/activeForm"):
        assert pointer in result.content
    assert todo_list(tools.ctx).items == ()


def test_an_empty_list_clears_it(tmp_path: Path) -> None:
    tools = _tools(tmp_path)
    _call(tools, [_item("Run a", "pending")])
    assert not _call(tools, []).is_error
    assert todo_list(tools.ctx).items == ()


def test_the_definition_the_model_sees_is_pinned() -> None:
    param = TodoWrite().to_param()
    assert param["input_schema"] == {
        "$defs": {
            "TodoItem": {
                "additionalProperties": False,
                "properties": {
                    "content": {
                        "description": 'The task, in the imperative: "Fix the loader cell".',
                        "minLength": 1,
                        "type": "string",
                    },
                    "status": {
                        "description": "pending, in_progress (at most one item) or completed.",
                        "enum": ["pending", "in_progress", "completed"],
                        "type": "string",
                    },
                    "activeForm": {
                        "description": 'The task as it is being done: "Fixing the loader cell".',
                        "minLength": 1,
                        "type": "string",
                    },
                },
                "required": ["content", "status", "activeForm"],
                "type": "object",
            }
        },
        "additionalProperties": False,
        "properties": {
            "todos": {
                "description": "The whole updated list (an empty list clears it).",
                "items": {"$ref": "#/$defs/TodoItem"},
                "type": "array",
            }
        },
        "required": ["todos"],
        "type": "object",
    }
    assert param["name"] == "TodoWrite"
    assert param["description"].startswith("Create and update the checklist for the current request")
