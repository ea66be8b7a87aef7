"""A command's `` !`cmd` `` and `@path`: what Claude Code fills in before the command's text is sent.

`` !`git status` `` runs the command and its output takes the place of the token; `@notes/plan.md` keeps its
place and the file's text is added after the request. Both go through the run's tool gate (the caller's
`RunTool`: the session's Dispatcher with nobody to ask), so a `!` runs only where this package's Bash rules,
the command's `allowed-tools`, the mode and the sandbox let it run without a question, and `@` reads only what
Read may read (inside the roots, no `Read(…)` deny rule). A refused `!` or `@` stops the whole command with one
line naming it and the reason; nothing is sent. A `@word` that names no file is left as written.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ..base.result import ToolResult
from ..builtin_tools.skill import BANG

#: `@path`: not an e-mail address (`a@b.c`) nor a decorator-like `@@`.
AT = re.compile(r"(?<![\w@`])@(?P<path>[\w.~/][^\s`'\"(),;]*)")

#: A tool call through the run's gate: (tool name, input) -> its result.
RunTool = Callable[[str, dict[str, Any]], Awaitable[ToolResult]]

#: The results a `!` command's output is kept from: it ran (an exit code or a timeout is output too).
RAN = frozenset({None, "EXECUTION_ERROR", "TIMEOUT"})


class ContextRefused(ValueError):
    """A `!` or `@` the gate refused; the message is the one line the user sees."""


def has_context(text: str) -> bool:
    """Whether the text holds a `` !`cmd` `` (what an untrusted project's command may not run)."""
    return BANG.search(text) is not None


#: The calls Claude Code makes for a command's `` !`cmd` `` and `@file` (this layer cannot import the tools; a
#: test holds both to a tool).
BANG_TOOL = "Bash"
AT_TOOL = "Read"


async def fill_in(text: str, run_tool: RunTool, *, cwd: Path, owner: str) -> str:
    """The text with each `` !`cmd` `` replaced by its output and each `@file`'s text appended."""
    pieces: list[str] = []
    last = 0
    for match in BANG.finditer(text):
        command = match.group("command").strip()
        result = await run_tool(BANG_TOOL, {"command": command, "description": f"{owner}: !`{command}`"})
        if result.error_code not in RAN:
            raise ContextRefused(
                f"{owner}: !`{command}` was not run, so nothing was sent: {_one_line(result)}"
            )
        pieces += [text[last : match.start()], result.content.rstrip("\n")]
        last = match.end()
    filled = "".join([*pieces, text[last:]])
    return filled + await _files(filled, run_tool, cwd=cwd, owner=owner)


async def _files(text: str, run_tool: RunTool, *, cwd: Path, owner: str) -> str:
    seen: list[str] = []
    blocks: list[str] = []
    for match in AT.finditer(text):
        written = match.group("path").rstrip(".:")
        path = Path(written).expanduser()
        path = path if path.is_absolute() else cwd / path
        if written in seen or not path.is_file():
            continue
        seen.append(written)
        result = await run_tool(AT_TOOL, {"file_path": str(path)})
        if result.is_error:
            raise ContextRefused(
                f"{owner}: @{written} was not read, so nothing was sent: {_one_line(result)}"
            )
        blocks.append(f"\n\nContents of @{written}:\n```\n{result.content.rstrip()}\n```")
    return "".join(blocks)


def _one_line(result: ToolResult) -> str:
    return " ".join(result.content.split())
