"""A call as Claude Code's hooks see it: `tool_input` with absolute paths and `tool_response` in the shape Claude
Code sends for each tool it shares with this package (Read, Write, Edit, MultiEdit, Glob, Grep, Bash,
NotebookEdit, WebFetch, WebSearch, Task, TodoWrite).

A hook written for Claude Code reads `tool_response.filePath` after a Write, `tool_response.stdout` after Bash;
this package's own result is one text for the model, so the response is rebuilt from the call's input and that
text (what this package does not know, such as a patch's hunks, is left empty rather than guessed). A tool
Claude Code does not have (RunCode, an MCP tool, …) gets `{"content", "is_error"}`; an MCP tool, its content
blocks as Claude Code passes them on. Everything here is masked where the event leaves for the hook
(`command_hooks`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from ..base.result import ToolResult

#: The input fields that hold a path, by tool (Claude Code sends them absolute).
PATH_FIELDS = {
    "Read": ("file_path",),
    "Write": ("file_path",),
    "Edit": ("file_path",),
    "MultiEdit": ("file_path",),
    "NotebookEdit": ("notebook_path",),
    "Glob": ("path",),
    "Grep": ("path",),
}
#: The first line of a Grep listing.
FOUND = re.compile(r"Found \d+ (file|match|line)")
#: The marker this package's Bash puts between stdout and stderr.
STDERR_MARK = "[stderr]\n"


def absolute(path: str, cwd: str) -> str:
    """`path` as an absolute, normalised path (`~` expanded), relative to `cwd`."""
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))


def claude_tool_input(tool: str, arguments: dict[str, Any], cwd: str) -> dict[str, Any]:
    """The input with each path made absolute; the other fields as the model sent them."""
    made = dict(arguments)
    for name in PATH_FIELDS.get(tool, ()):
        value = made.get(name)
        if isinstance(value, str) and value:
            made[name] = absolute(value, cwd)
    return made


def claude_tool_response(tool: str, arguments: dict[str, Any], result: ToolResult, cwd: str) -> Any:
    """What Claude Code's PostToolUse hooks get as `tool_response` for this call's (successful) result."""
    shape = RESPONSE_SHAPES.get(tool)
    made_input = claude_tool_input(tool, arguments, cwd)
    if shape is not None:
        return shape(made_input, result, cwd)
    text = result.content
    if tool.startswith("mcp__"):
        return [{"type": "text", "text": text}]
    return {"content": text, "is_error": result.is_error}


def _lines(text: str) -> list[str]:
    """The listed lines of a result, without this package's header (`Found 2 files`) and the notes it adds after a
    blank line or in brackets."""
    body = text.split("\n\n", 1)[0]
    lines = [line for line in body.splitlines() if line.strip() and not line.startswith("[")]
    return lines[1:] if lines and FOUND.match(lines[0]) else lines


def _read(args: dict[str, Any], result: ToolResult, cwd: str) -> dict[str, Any]:
    first = result.data.get("first")
    last = result.data.get("last")
    start = first if isinstance(first, int) else 1
    count = last - start + 1 if isinstance(last, int) else len(result.content.splitlines())
    file = {"filePath": args.get("file_path", ""), "content": result.content, "numLines": count}
    return {"type": "text", "file": {**file, "startLine": start}}


def _write(args: dict[str, Any], result: ToolResult, cwd: str) -> dict[str, Any]:
    return {
        "type": result.data.get("type", "update"),
        "filePath": args.get("file_path", ""),
        "content": str(args.get("content", "")),
        "structuredPatch": [],
        "originalFile": None,
    }


def _edit(args: dict[str, Any], result: ToolResult, cwd: str) -> dict[str, Any]:
    return {
        "filePath": args.get("file_path", ""),
        "oldString": str(args.get("old_string", "")),
        "newString": str(args.get("new_string", "")),
        "originalFile": None,
        "structuredPatch": [],
        "userModified": False,
        "replaceAll": bool(args.get("replace_all", False)),
    }


def _multiedit(args: dict[str, Any], result: ToolResult, cwd: str) -> dict[str, Any]:
    return {
        "filePath": args.get("file_path", ""),
        "edits": args.get("edits", []),
        "originalFileContents": None,
        "structuredPatch": [],
    }


def _glob(args: dict[str, Any], result: ToolResult, cwd: str) -> dict[str, Any]:
    base = str(args.get("path") or cwd)
    names = [absolute(line.strip(), base) for line in _lines(result.content)]
    if result.content.startswith("No files"):
        names = []
    return {"filenames": names, "durationMs": 0, "numFiles": len(names), "truncated": False}


def _grep(args: dict[str, Any], result: ToolResult, cwd: str) -> dict[str, Any]:
    mode = args.get("output_mode") or "files_with_matches"
    base = str(args.get("path") or cwd)
    lines = [] if result.summary == "No matches" else _lines(result.content)
    if mode == "content":
        files = sorted({absolute(line.split(":", 1)[0], base) for line in lines if ":" in line})
        return {
            "mode": mode,
            "numFiles": len(files),
            "filenames": files,
            "content": "\n".join(lines),
            "numLines": len(lines),
        }
    files = [absolute(line.split(":", 1)[0] if mode == "count" else line, base) for line in lines]
    return {"mode": mode, "numFiles": len(files), "filenames": files}


def _bash(args: dict[str, Any], result: ToolResult, cwd: str) -> dict[str, Any]:
    text = "" if result.content == "(no output)" else result.content
    stdout, stderr = text, ""
    if text.startswith(STDERR_MARK):
        stdout, stderr = "", text[len(STDERR_MARK) :]
    elif f"\n{STDERR_MARK}" in text:
        stdout, stderr = text.split(f"\n{STDERR_MARK}", 1)
    background = result.content if args.get("run_in_background") else None
    shape: dict[str, Any] = {"stdout": stdout, "stderr": stderr, "interrupted": False, "isImage": False}
    return shape if background is None else {**shape, "backgroundTaskId": result.data.get("id", "")}


def _notebook_edit(args: dict[str, Any], result: ToolResult, cwd: str) -> dict[str, Any]:
    return {
        "new_source": str(args.get("new_source") or ""),
        "cell_id": result.data.get("cell_id", args.get("cell_id")),
        "cell_type": args.get("cell_type") or "code",
        "language": "python",
        "edit_mode": args.get("edit_mode", "replace"),
        "error": "",
        "notebook_path": args.get("notebook_path", ""),
    }


def _web_fetch(args: dict[str, Any], result: ToolResult, cwd: str) -> dict[str, Any]:
    text = result.content
    return {
        "bytes": len(text.encode("utf-8")),
        "code": 200,
        "codeText": "OK",
        "result": text,
        "durationMs": 0,
        "url": args.get("url", ""),
    }


def _web_search(args: dict[str, Any], result: ToolResult, cwd: str) -> dict[str, Any]:
    return {"query": args.get("query", ""), "results": [result.content], "durationSeconds": 0}


def _task(args: dict[str, Any], result: ToolResult, cwd: str) -> dict[str, Any]:
    return {
        "status": "completed",
        "prompt": args.get("prompt", ""),
        "content": [{"type": "text", "text": result.content}],
        "totalDurationMs": 0,
        "totalTokens": 0,
        "totalToolUseCount": 0,
    }


def _todo_write(args: dict[str, Any], result: ToolResult, cwd: str) -> dict[str, Any]:
    return {"oldTodos": [], "newTodos": result.data.get("todos", args.get("todos", []))}


RESPONSE_SHAPES: dict[str, Callable[[dict[str, Any], ToolResult, str], Any]] = {
    "Read": _read,
    "Write": _write,
    "Edit": _edit,
    "MultiEdit": _multiedit,
    "Glob": _glob,
    "Grep": _grep,
    "Bash": _bash,
    "NotebookEdit": _notebook_edit,
    "WebFetch": _web_fetch,
    "WebSearch": _web_search,
    "Task": _task,
    "TodoWrite": _todo_write,
}
