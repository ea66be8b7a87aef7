"""An unknown field inside a nested object (a TodoWrite item, an AskUserQuestion option, a MultiEdit edit) is
answered with the fields of that object, as the model must write them — not the tool's top-level fields.

Models trained on older Claude Code versions send TodoWrite items with `id` and `priority`; "remove `id`
(allowed fields: todos)" sent them looking for a field that cannot go there.
"""

from __future__ import annotations

from pathlib import Path

from dispatch_harness import ToolHarness, file_harness

from jupyter_agent.builtin_tools.workflow import workflow_tools


def test_a_todo_item_with_old_fields_is_told_the_item_fields(tmp_path: Path) -> None:
    tools = ToolHarness(tmp_path, workflow_tools(), mode="bypassPermissions")
    item = {"content": "Load", "status": "pending", "activeForm": "Loading", "id": "1", "priority": "high"}
    result = tools.call("TodoWrite", todos=[item])
    assert "- /todos/0/id: expected no such field" in result.content
    assert "Fix: remove `id` (allowed fields: content, status, activeForm)" in result.content
    assert "Fix: remove `priority` (allowed fields: content, status, activeForm)" in result.content


def test_a_question_option_and_a_question_each_name_their_own_fields(tmp_path: Path) -> None:
    tools = ToolHarness(tmp_path, workflow_tools(), mode="bypassPermissions")
    options = [{"label": "A", "description": "a", "value": 1}, {"label": "B", "description": "b"}]
    result = tools.call("AskUserQuestion", questions=[{"question": "Which?", "header": "Pick", "options": options, "multi": True}])  # fmt: skip
    assert "Fix: remove `value` (allowed fields: label, description)" in result.content
    assert "Fix: remove `multi` (allowed fields: question, header, options, multiSelect)" in result.content


def test_a_multiedit_edit_names_the_edit_fields(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a = 1\n")
    tools = file_harness(tmp_path)
    result = tools.call(
        "MultiEdit",
        file_path="a.py",
        edits=[{"old_string": "a = 1", "new_string": "a = 2", "replaceAll": True}],
    )
    assert "Fix: remove `replaceAll` (allowed fields: old_string, new_string, replace_all)" in result.content


def test_top_level_fields_are_named_as_the_model_writes_them(tmp_path: Path) -> None:
    result = file_harness(tmp_path).call("Grep", pattern="x", lines_before=2)
    assert "Fix: remove `lines_before` (allowed fields: pattern," in result.content
    assert "-B, -A, -C" in result.content  # the aliases the schema shows, not the Python names
