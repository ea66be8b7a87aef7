"""Edit: replace an exact string in a file the model has read, keeping its encoding, BOM and line endings."""

from __future__ import annotations

import asyncio

from ...base.errors import ToolError
from ...base.result import ToolResult
from ...tools.context import ToolContext
from ...tools.core import WRITES, Preview, Tool, ToolInput
from .access import Target, not_found, read_existing, require_fresh, target
from .change import PlannedChange, commit, plan
from .media import human_size
from .notebook_guard import guard_notebook_file
from .replace import Replaced, replace
from .text import TextDoc, decode, display, is_binary, normalize_eol

#: Edit holds the file, its decoded text and the new text in memory at once.
EDIT_MAX_BYTES = 32 * 1024 * 1024
_SNIPPET_CONTEXT = 2
_SNIPPET_LINES = 30

DESCRIPTION = """\
Replace an exact string in a file.
- Read the file first in this conversation; Edit refuses a file you have not read or that changed since.
- old_string must match the file exactly, including indentation and whitespace. Copy it from Read's \
output without the line-number prefix (number + tab).
- old_string must be unique in the file: include enough surrounding lines, or set replace_all to change \
every occurrence (e.g. to rename a variable).
- An empty old_string creates a new file with new_string as its content (only if the file does not exist).
- Line endings (CRLF/LF) and encoding are kept. For notebooks (.ipynb) use NotebookEdit."""


class EditInput(ToolInput):
    file_path: str
    """The file to change: absolute, or relative to the working directory."""
    old_string: str
    """The exact text to replace (empty only to create a new file)."""
    new_string: str
    """The text to put in its place (must differ from old_string)."""
    replace_all: bool = False
    """Replace every occurrence of old_string instead of requiring exactly one."""


def plan_edit(params: EditInput, ctx: ToolContext) -> tuple[PlannedChange, Replaced | None]:
    require_change(params.old_string, params.new_string)
    where = text_target(ctx, params.file_path)
    before = read_existing(where)
    if before is None:
        if params.old_string:
            raise not_found(ctx, where)
        return plan(where, None, TextDoc(text=""), params.new_string), None
    require_fresh(ctx, where, before)
    if not params.old_string:
        if before:
            raise ToolError(
                "INVALID_ARGS",
                f"old_string is empty but '{where.shown}' already exists and is not empty; an empty old_string "
                "only creates a new file. Pass the text to replace as old_string, or use Write to replace it all",
            )
        return plan(where, before, TextDoc(text=""), params.new_string), None
    check_editable(where, before)
    doc = decode(before, ctx.sandbox.fallback_encoding)
    replaced = replace(
        doc.text, params.old_string, params.new_string, replace_all=params.replace_all, shown=where.shown
    )
    return plan(where, before, doc, replaced.text), replaced


def require_change(old_string: str, new_string: str) -> None:
    if old_string == new_string:
        raise ToolError(
            "NO_CHANGE",
            "old_string and new_string are identical, so the edit would change nothing; "
            "pass the replacement text as new_string",
        )


def text_target(ctx: ToolContext, file_path: str) -> Target:
    """The confined file an edit tool changes; notebooks are refused (their cells have ids, not lines)."""
    where = target(ctx, file_path)
    if where.real.suffix.lower() == ".ipynb":
        raise ToolError(
            "INVALID_ARGS",
            f"'{where.shown}' is a Jupyter notebook; change its cells with NotebookEdit (Read shows the cell ids)",
        )
    return where


def check_editable(where: Target, before: bytes) -> None:
    """`FILE_TOO_LARGE` / `BINARY_FILE` for files the string-replacing tools cannot change in memory."""
    if len(before) > EDIT_MAX_BYTES:
        raise ToolError(
            "FILE_TOO_LARGE",
            f"'{where.shown}' is {human_size(len(before))}, over the {human_size(EDIT_MAX_BYTES)} limit for Edit; "
            "change it from Python in the kernel instead",
        )
    if is_binary(before):
        raise ToolError("BINARY_FILE", f"'{where.shown}' is a binary file; Edit changes text files only")


def snippet(text: str, first_line: int, new_string: str) -> str:
    """The edited lines with a little context, numbered like Read, so the model sees the result."""
    lines = normalize_eol(text).split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the text ended with a newline: no line after it
    new = normalize_eol(new_string)
    spans = max(new.count("\n") + (0 if new.endswith("\n") else 1), 1)
    start = max(first_line - 1 - _SNIPPET_CONTEXT, 0)
    end = min(first_line - 1 + spans + _SNIPPET_CONTEXT, len(lines))
    picked = lines[start : min(end, start + _SNIPPET_LINES)]
    body = "\n".join(f"{start + i + 1:>6}\t{line}" for i, line in enumerate(picked))
    return display(body) + ("\n     …" if end - start > _SNIPPET_LINES else "")


class EditTool(Tool[EditInput]):
    name = "Edit"
    description = DESCRIPTION
    kind = "edit"
    annotations = WRITES
    Input = EditInput
    rule_field = "file_path"
    rule_kind = "path"

    async def preview(self, params: EditInput, ctx: ToolContext) -> Preview:
        await guard_notebook_file(ctx, params.file_path)
        change, _ = await asyncio.to_thread(plan_edit, params, ctx)
        return change.preview()

    async def run(self, params: EditInput, ctx: ToolContext) -> ToolResult:
        await guard_notebook_file(ctx, params.file_path)
        return await asyncio.to_thread(self._edit, params, ctx)

    def _edit(self, params: EditInput, ctx: ToolContext) -> ToolResult:
        change, replaced = plan_edit(params, ctx)
        commit(ctx, change, tool=self.name)
        shown, counts = change.where.shown, change.diff.counts
        summary = f"Edited {shown} ({counts})"
        if replaced is None:
            lines = len(params.new_string.splitlines())
            verb = "Created" if change.creates else "Wrote the empty file"
            return ToolResult.ok(f"{verb} '{shown}' ({lines} lines).", summary=summary, diff=change.diff.text)
        count, first = len(replaced.lines), replaced.lines[0]
        if count > 1:
            listed = ", ".join(str(n) for n in replaced.lines[:20]) + (", …" if count > 20 else "")
            content = (
                f"Edited '{shown}' ({counts}): replaced {count} occurrences (they were at lines {listed})."
            )
        else:
            after = snippet(
                decode(change.after, ctx.sandbox.fallback_encoding).text, first, params.new_string
            )
            content = f"Edited '{shown}' ({counts}). The changed lines now read:\n{after}"
        return ToolResult.ok(content, summary=summary, diff=change.diff.text)
