"""`tool_input` and `tool_response` as Claude Code's hooks get them, for each tool this package shares with Claude
Code: the real tools through the real Dispatcher, to the real hook script of the kernel tests
(tests/fixtures/hooks/check_event.py), which checks the documented fields and shapes; then the values."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import ToolHarness

from jupyter_agent.base.result import ToolResult
from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.builtin_tools.shell import bash_tool
from jupyter_agent.builtin_tools.workflow.todo import TodoWrite
from jupyter_agent.tools.command_hooks import CommandHook, CommandHooks, HookSession
from jupyter_agent.tools.hook_payloads import claude_tool_input, claude_tool_response
from jupyter_agent.tools.hooks import Hooks

CHECK = Path(__file__).resolve().parents[2] / "fixtures" / "hooks" / "check_event.py"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "project"
    root.mkdir()
    (root / "notes.txt").write_text("hello\nworld\n")
    return root


def checked_tools(project: Path) -> ToolHarness:
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(CHECK))}"
    hooks = [
        CommandHook(event=e, matcher="*", command=command, cwd=project) for e in ("PreToolUse", "PostToolUse")
    ]
    session = HookSession(session_id="s1", transcript_path="", cwd=str(project), permission_mode="default")
    commands = CommandHooks(hooks, session=lambda: session, report=lambda line: None)
    wired = Hooks(pre_tool_use=[commands.pre_tool_use], post_tool_use=[commands.post_tool_use])
    tools = [*file_tools(), bash_tool(), TodoWrite()]
    return ToolHarness(project, tools, mode="bypassPermissions", hooks=wired)


def seen(project: Path) -> dict[str, dict[str, Any]]:
    """The last PostToolUse record of each tool, failing on any problem the hook script found."""
    records = [json.loads(line) for line in (project / "hook-log.jsonl").read_text().splitlines()]
    assert [(r["event"], r["matched"], r["problems"]) for r in records if r["problems"]] == []
    return {r["matched"]: r["input"] for r in records if r["event"] == "PostToolUse"}


def test_every_shared_file_and_shell_tool_sends_claude_codes_shapes(project: Path) -> None:
    tools = checked_tools(project)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("Read", {"file_path": "notes.txt"}),
        ("Write", {"file_path": "new.txt", "content": "one\n"}),
        ("Edit", {"file_path": "new.txt", "old_string": "one", "new_string": "two"}),
        ("MultiEdit", {"file_path": "new.txt", "edits": [{"old_string": "two", "new_string": "three"}]}),
        ("Glob", {"pattern": "*.txt"}),
        ("Grep", {"pattern": "hello", "glob": "*.txt", "output_mode": "content"}),
        ("Bash", {"command": "echo out; echo err >&2"}),
        ("TodoWrite", {"todos": [{"content": "Check", "status": "pending", "activeForm": "Checking"}]}),
    ]
    for name, arguments in calls:
        result = tools.call(name, **arguments)
        assert not result.is_error, (name, result.content)
    by_tool = seen(project)
    assert set(by_tool) == {name for name, _ in calls}
    read = by_tool["Read"]["tool_response"]
    assert read["file"]["filePath"] == str(project / "notes.txt") and "hello" in read["file"]["content"]
    assert read["file"]["startLine"] == 1
    write = by_tool["Write"]["tool_response"]
    assert (
        write["type"] == "create"
        and write["filePath"] == str(project / "new.txt")
        and write["content"] == "one\n"
    )
    edit = by_tool["Edit"]["tool_response"]
    assert (edit["oldString"], edit["newString"], edit["replaceAll"]) == ("one", "two", False)
    assert by_tool["MultiEdit"]["tool_response"]["edits"][0]["new_string"] == "three"
    glob = by_tool["Glob"]["tool_response"]
    assert sorted(glob["filenames"]) == [str(project / "new.txt"), str(project / "notes.txt")]
    assert glob["numFiles"] == 2
    grep = by_tool["Grep"]["tool_response"]
    assert grep["mode"] == "content" and grep["filenames"] == [str(project / "notes.txt")]
    assert grep["content"] == "notes.txt:1:hello"
    bash = by_tool["Bash"]["tool_response"]
    assert (bash["stdout"], bash["stderr"], bash["interrupted"]) == ("out", "err", False)
    assert by_tool["TodoWrite"]["tool_response"]["newTodos"][0]["content"] == "Check"
    assert by_tool["Edit"]["tool_input"]["file_path"] == str(
        project / "new.txt"
    )  # absolute, as Claude Code's


def test_writing_an_existing_file_says_update_and_grep_lists_absolute_files(project: Path) -> None:
    tools = checked_tools(project)
    tools.read("notes.txt")
    assert not tools.call("Write", file_path="notes.txt", content="bye\n").is_error
    assert not tools.call("Grep", pattern="bye", glob="*.txt").is_error
    by_tool = seen(project)
    assert by_tool["Write"]["tool_response"]["type"] == "update"
    grep = by_tool["Grep"]["tool_response"]
    assert grep == {"mode": "files_with_matches", "numFiles": 1, "filenames": [str(project / "notes.txt")]}


@pytest.mark.parametrize(
    ("tool", "arguments", "keys"),
    [
        ("WebFetch", {"url": "https://example.com", "prompt": "title"}, {"url", "result", "code", "bytes"}),
        ("WebSearch", {"query": "pandas 3"}, {"query", "results", "durationSeconds"}),
        ("Task", {"description": "Look", "prompt": "Find it."}, {"status", "content", "totalDurationMs"}),
        (
            "NotebookEdit",
            {"notebook_path": "a.ipynb", "cell_id": "c1", "new_source": "x = 1"},
            {"new_source", "cell_id", "cell_type", "edit_mode"},
        ),
        ("RunCode", {"code": "1"}, {"content", "is_error"}),
    ],
)
def test_the_other_shared_tools_responses_keep_claude_codes_keys(
    project: Path, tool: str, arguments: dict[str, Any], keys: set[str]
) -> None:
    result = ToolResult.ok("the page says hello", data={"cell_id": "c1"})
    response = claude_tool_response(tool, arguments, result, str(project))
    assert keys <= set(response)
    assert "the page says hello" in json.dumps(response) or tool == "NotebookEdit"


def test_an_mcp_tools_response_is_its_content_blocks() -> None:
    response = claude_tool_response("mcp__github__get_issue", {}, ToolResult.ok("issue 7"), "/p")
    assert response == [{"type": "text", "text": "issue 7"}]


def test_paths_are_made_absolute_and_other_fields_left_as_sent() -> None:
    made = claude_tool_input("NotebookEdit", {"notebook_path": "sub/../a.ipynb", "new_source": "x"}, "/p")
    assert made == {"notebook_path": "/p/a.ipynb", "new_source": "x"}
    assert claude_tool_input("Bash", {"command": "cat a.txt"}, "/p") == {"command": "cat a.txt"}
