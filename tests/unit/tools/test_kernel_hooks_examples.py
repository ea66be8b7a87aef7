"""The hook examples in docs/hooks.md, taken from the document itself and run through a real Dispatcher.

The tools are tiny `@tool` functions named like the built-ins the examples look at (Write, Edit), writing
real files under tmp_path.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import ToolHarness

from jupyter_agent.tools import (
    ToolResult,
    tool,
)
from jupyter_agent.tools.hooks import Hooks

DOC = Path(__file__).resolve().parents[3] / "docs" / "hooks.md"


def doc_examples() -> dict[str, Any]:
    """Every ```python block of the document, executed in order in one namespace."""
    namespace: dict[str, Any] = {}
    for block in re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL):
        exec(compile(block, str(DOC), "exec"), namespace)
    return namespace


def make_tools(root: Path) -> list[Any]:
    @tool(name="Write")
    def write(file_path: str, content: str) -> str:
        """Write a file."""
        (root / file_path).parent.mkdir(parents=True, exist_ok=True)
        (root / file_path).write_text(content)
        return f"wrote {file_path}"

    @tool(name="Edit")
    def edit(file_path: str, old_string: str, new_string: str) -> ToolResult:
        """Replace text in a file."""
        path = root / file_path
        text = path.read_text()
        if old_string not in text:
            return ToolResult.error("TEXT_NOT_FOUND", f"old_string is not in '{file_path}'")
        path.write_text(text.replace(old_string, new_string, 1))
        return ToolResult.ok(f"edited {file_path}")

    return [write, edit]


@pytest.fixture
def examples(tmp_path: Path) -> dict[str, Any]:
    namespace = doc_examples()
    namespace["LOG_PATH"] = (
        tmp_path / "agent-calls.jsonl"
    )  # the example's log file, inside the test's directory
    return namespace


def dispatch(
    examples: dict[str, Any], tmp_path: Path, calls: list[tuple[str, dict[str, Any]]]
) -> list[ToolResult]:
    hooks = Hooks(pre_tool_use=[examples["block_lock_files"]], post_tool_use=[examples["log_calls"]])
    tools = ToolHarness(tmp_path, make_tools(tmp_path), mode="bypassPermissions", hooks=hooks)

    async def run_all() -> list[ToolResult]:
        return [
            await tools.acall(name, args, call_id=f"t{index}") for index, (name, args) in enumerate(calls)
        ]

    return asyncio.run(run_all())


def logged(examples: dict[str, Any]) -> list[dict[str, Any]]:
    path: Path = examples["LOG_PATH"]
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_writing_a_lock_file_is_refused_with_what_to_do_instead(
    examples: dict[str, Any], tmp_path: Path
) -> None:
    [result] = dispatch(examples, tmp_path, [("Write", {"file_path": "uv.lock", "content": "pinned"})])
    assert result.error_code == "DENIED"
    assert result.content == (
        "DENIED: uv.lock is a lock file and is not edited by hand; change the dependency in the manifest "
        "(e.g. pyproject.toml) and ask the user to run the package manager"
    )
    assert not (tmp_path / "uv.lock").exists()
    assert logged(examples) == []  # refused calls never reach post_tool_use


def test_editing_a_nested_lock_file_is_refused_too(examples: dict[str, Any], tmp_path: Path) -> None:
    (tmp_path / "rust").mkdir()
    (tmp_path / "rust" / "Cargo.lock").write_text("v1")
    args = {"file_path": "rust/Cargo.lock", "old_string": "v1", "new_string": "v2"}
    [result] = dispatch(examples, tmp_path, [("Edit", args)])
    assert result.error_code == "DENIED"
    assert (tmp_path / "rust" / "Cargo.lock").read_text() == "v1"


def test_other_files_are_written_and_every_call_that_ran_is_logged(
    examples: dict[str, Any], tmp_path: Path
) -> None:
    results = dispatch(
        examples,
        tmp_path,
        [
            ("Write", {"file_path": "notes.txt", "content": "draft"}),
            ("Edit", {"file_path": "notes.txt", "old_string": "draft", "new_string": "final"}),
            ("Edit", {"file_path": "notes.txt", "old_string": "missing", "new_string": "x"}),
            ("Write", {"file_path": "poetry.lock", "content": "no"}),
        ],
    )
    assert [r.error_code for r in results] == [None, None, "TEXT_NOT_FOUND", "DENIED"]
    assert (tmp_path / "notes.txt").read_text() == "final"
    records = logged(examples)
    assert [(r["tool"], r["input"], r["error"], r["summary"]) for r in records] == [
        ("Write", {"file_path": "notes.txt", "content": "draft"}, None, "wrote notes.txt"),
        (
            "Edit",
            {"file_path": "notes.txt", "old_string": "draft", "new_string": "final"},
            None,
            "edited notes.txt",
        ),
        (
            "Edit",
            {"file_path": "notes.txt", "old_string": "missing", "new_string": "x"},
            "TEXT_NOT_FOUND",
            "TEXT_NOT_FOUND",
        ),
    ]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", r["time"]) for r in records)


def test_the_smaller_patterns_in_the_document_decide_as_described(examples: dict[str, Any]) -> None:
    from jupyter_agent.tools import Ask, HookCall, Rewrite

    ask = examples["ask_before_network"](HookCall(tool="Bash", input={}, subject="curl https://example.com"))
    assert ask == Ask(reason="this command reaches the network")
    assert examples["ask_before_network"](HookCall(tool="Bash", input={}, subject="ls")) is None
    capped = examples["cap_runcode_time"](
        HookCall(tool="RunCode", input={"code": "1", "timeout": None}, subject=None)
    )
    assert capped == Rewrite(input={"code": "1", "timeout": 30_000})
