"""Write: create a file or replace one the model has read; atomic, journaled, with a diff for the approval."""

from __future__ import annotations

import asyncio

from ...base.errors import ToolError
from ...base.result import ToolResult
from ...tools.context import ToolContext
from ...tools.core import WRITES, Preview, Tool, ToolInput
from .access import read_existing, require_fresh, target
from .change import PlannedChange, commit, plan
from .notebook_guard import guard_notebook_file
from .text import TextDoc, decode, is_binary, with_eol

DESCRIPTION = """\
Write a file: create it (missing parent directories are created) or replace all of its content.
- Replacing an existing file requires that you Read it first in this conversation; if it changed \
since, Read it again.
- Prefer Edit for changing part of an existing file: it sends only the change.
- The file keeps its line endings (CRLF stays CRLF) and encoding.
- Paths are absolute or relative to the working directory, inside the allowed roots."""


class WriteInput(ToolInput):
    file_path: str
    """The file to write: absolute, or relative to the working directory."""
    content: str
    """The complete new content of the file."""


def like_before(before: bytes | None, content: str, fallback: str) -> tuple[TextDoc, str]:
    """The replaced file as read (its encoding and BOM decide how `content` is written) and `content` with the
    file's CRLF line endings when `content` has only LF ones."""
    if before is None or is_binary(before):
        return TextDoc(text=""), content
    doc = decode(before, fallback)
    if doc.eol == "\r\n" and "\r\n" not in content:
        content = with_eol(content, "\r\n")
    return doc, content


def plan_write(params: WriteInput, ctx: ToolContext) -> PlannedChange:
    where = target(ctx, params.file_path)
    before = read_existing(where)
    if before is not None and where.real.suffix.lower() == ".ipynb":
        # The notebook may be open in JupyterLab: replacing its file would fight the editor's copy.
        raise ToolError(
            "INVALID_ARGS",
            f"'{where.shown}' is an existing Jupyter notebook; change its cells with NotebookEdit "
            "(NotebookRead shows the cell ids) instead of rewriting the file",
        )
    if before is not None:
        require_fresh(ctx, where, before)
    doc, content = like_before(before, params.content, ctx.sandbox.fallback_encoding)
    return plan(where, before, doc, content)


class WriteTool(Tool[WriteInput]):
    name = "Write"
    description = DESCRIPTION
    kind = "edit"
    annotations = WRITES
    Input = WriteInput
    rule_field = "file_path"
    rule_kind = "path"
    streamed_field = "content"

    async def preview(self, params: WriteInput, ctx: ToolContext) -> Preview:
        await guard_notebook_file(ctx, params.file_path)
        change = await asyncio.to_thread(plan_write, params, ctx)
        return change.preview()

    async def run(self, params: WriteInput, ctx: ToolContext) -> ToolResult:
        await guard_notebook_file(ctx, params.file_path)
        return await asyncio.to_thread(self._write, params, ctx)

    def _write(self, params: WriteInput, ctx: ToolContext) -> ToolResult:
        change = plan_write(params, ctx)
        shown = change.where.shown
        if change.unchanged:
            return ToolResult.ok(
                f"'{shown}' already has exactly this content; nothing was written.",
                summary=f"Wrote {shown} (no changes)",
                data={"type": "update"},
            )
        commit(ctx, change, tool=self.name)
        counts = change.diff.counts if change.after else "empty"
        if change.creates:
            lines = len(params.content.splitlines())
            content = f"Created '{shown}' ({lines} lines)."
        else:
            content = f"Replaced the content of '{shown}' ({counts} lines)."
        return ToolResult.ok(
            content,
            summary=f"Wrote {shown} ({counts})",
            diff=change.diff.text,
            data={"type": "create" if change.creates else "update"},  # Claude Code's `type` (hooks read it)
        )
