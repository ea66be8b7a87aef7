"""MultiEdit: several exact replacements in one file, applied in order, all or nothing, as one change.

The edits are applied to the text in memory one after another (each sees the result of the ones before);
only when every one of them succeeded is the file written, once. So the approval shows one diff, the
journal holds one change (one undo step), and a failing edit leaves the file byte-identical.
"""

from __future__ import annotations

import asyncio

from pydantic import Field

from ...base.errors import ToolError
from ...base.result import ToolResult
from ...tools.context import ToolContext
from ...tools.core import WRITES, Preview, Tool, ToolInput
from .access import not_found, read_existing, require_fresh
from .change import PlannedChange, commit, plan
from .edit import check_editable, require_change, text_target
from .notebook_guard import guard_notebook_file
from .replace import replace
from .text import TextDoc, decode

DESCRIPTION = """\
Make several exact string replacements in one file at once. Prefer it to several Edit calls on the same file.
- Read the file first in this conversation; MultiEdit refuses a file you have not read or that changed since.
- The edits are applied in order, each to the result of the ones before it (an edit can change text an \
earlier edit wrote).
- All or nothing: if any edit fails (old_string not found, not unique, identical to new_string), no edit is \
applied and the error says which one failed and why.
- Each old_string must match exactly, including indentation, and be unique unless replace_all is set.
- To create a new file, give the path of a file that does not exist, an empty old_string in the first edit \
and the content as its new_string.
- Line endings (CRLF/LF) and encoding are kept. For notebooks (.ipynb) use NotebookEdit."""


class EditOperation(ToolInput):
    old_string: str
    """The exact text to replace (empty only in the first edit, to create a new file)."""
    new_string: str
    """The text to put in its place (must differ from old_string)."""
    replace_all: bool = False
    """Replace every occurrence of old_string instead of requiring exactly one."""


class MultiEditInput(ToolInput):
    file_path: str
    """The file to change: absolute, or relative to the working directory."""
    edits: list[EditOperation] = Field(min_length=1)
    """The replacements, applied in order to the file's text."""


def plan_multi_edit(params: MultiEditInput, ctx: ToolContext) -> PlannedChange:
    """The whole change, or the `ToolError` of the first edit that cannot be made (nothing is written)."""
    where = text_target(ctx, params.file_path)
    edits = params.edits
    before = read_existing(where)
    if before is None:
        if edits[0].old_string:
            raise not_found(ctx, where)
        doc, text, rest, offset = TextDoc(text=""), edits[0].new_string, edits[1:], 1
    else:
        require_fresh(ctx, where, before)
        if not edits[0].old_string and before:
            raise _failed(
                1,
                len(edits),
                where.shown,
                ToolError(
                    "INVALID_ARGS",
                    "old_string is empty but the file already exists and is not empty; an empty old_string "
                    "only creates a new file",
                ),
            )
        check_editable(where, before)
        doc = decode(before, ctx.sandbox.fallback_encoding)
        text, rest, offset = doc.text, edits, 0
    for number, edit in enumerate(rest, start=offset + 1):
        try:
            require_change(edit.old_string, edit.new_string)
            if not edit.old_string:
                raise ToolError(
                    "INVALID_ARGS", "old_string is empty; only the first edit may create the file"
                )
            text = replace(
                text, edit.old_string, edit.new_string, replace_all=edit.replace_all, shown=where.shown
            ).text
        except ToolError as error:
            raise _failed(number, len(edits), where.shown, error) from error
    return plan(where, before, doc, text)


def _failed(number: int, total: int, shown: str, error: ToolError) -> ToolError:
    before = "edit 1" if number == 2 else f"edits 1–{number - 1}"
    earlier = "" if number == 1 else f" (checked against the text as {before} left it)"
    return ToolError(
        error.code,
        f"edit {number} of {total} failed{earlier}: {error.message.rstrip('.')}. No edit was applied; '{shown}' is unchanged",
    )


class MultiEditTool(Tool[MultiEditInput]):
    name = "MultiEdit"
    description = DESCRIPTION
    kind = "edit"
    annotations = WRITES
    Input = MultiEditInput
    rule_field = "file_path"
    rule_kind = "path"

    async def preview(self, params: MultiEditInput, ctx: ToolContext) -> Preview:
        await guard_notebook_file(ctx, params.file_path)
        change = await asyncio.to_thread(plan_multi_edit, params, ctx)
        return change.preview()

    async def run(self, params: MultiEditInput, ctx: ToolContext) -> ToolResult:
        await guard_notebook_file(ctx, params.file_path)
        return await asyncio.to_thread(self._edit, params, ctx)

    def _edit(self, params: MultiEditInput, ctx: ToolContext) -> ToolResult:
        change = plan_multi_edit(params, ctx)
        commit(ctx, change, tool=self.name)
        shown, counts, count = change.where.shown, change.diff.counts, len(params.edits)
        verb = "Created" if change.creates else "Edited"
        content = (
            f"{verb} '{shown}' with {count} edit{'s' if count != 1 else ''} ({counts}):\n{change.diff.text}"
        )
        return ToolResult.ok(
            content, summary=f"{verb} {shown} ({count} edits, {counts})", diff=change.diff.text
        )
