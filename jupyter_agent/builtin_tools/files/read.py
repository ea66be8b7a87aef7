"""Read: numbered lines of a text file (only the requested range is read), an image, or a notebook's cells."""

from __future__ import annotations

import asyncio
import io
import stat

from pydantic import Field

from ...base.errors import ToolError
from ...base.result import ToolResult
from ...base.sandbox import Limits
from ...tools.context import ToolContext
from ...tools.core import READ_ONLY, Tool, ToolInput
from .access import Target, not_a_directory, not_found, read_target, remember
from .encoding import SAMPLE_BYTES, detect
from .lines import Window, cat_n, count_lines, read_window
from .media import binary_error, human_size, image_content, is_image, known_binary
from .notebook_view import read_notebook
from .pdf import PDF_PAGES_PER_READ, PDF_PAGES_WHOLE, check_pdf_size, pdf_text
from .text import decode, display, is_binary

_DEFAULTS = Limits()
#: The most text one Read returns (about 25k tokens), whatever the line limit; `max_file_bytes` if lower.
READ_OUTPUT_CHARS = 100_000

DESCRIPTION = """\
Read a file from the project (paths are absolute or relative to the working directory).
- Text comes back numbered like `cat -n`: the line number, a tab, then the line. The numbers are not part \
of the file: never copy them into Edit's old_string.
- Without offset/limit the whole file is read (up to {lines} lines and about {default_chars} characters; \
the marker at the end says which offset reads on); files over {size} must be read in parts with offset \
(1-based first line) and limit (number of lines).
- Lines longer than {line_chars} characters are cut, with a marker saying how much.
- Images (PNG, JPEG, GIF, WebP) are shown to you as images.
- PDFs come back as text, page by page; for a PDF over {pdf_pages} pages pass pages (e.g. "1-5"), at most \
{pdf_per_read} pages per call.
- Jupyter notebooks (.ipynb) are shown as cells with ids, types, sources and outputs; offset/limit then \
count cells. For this kernel's own notebook use NotebookRead: Read gives its saved file, which may be \
behind what the user sees.
- Write and Edit only change a file you have read in this conversation, so Read before changing one.
- Use Glob to list a directory and Grep to search; you may Read several files at once."""


class ReadInput(ToolInput):
    file_path: str
    """The file to read: absolute, or relative to the working directory."""
    offset: int | None = Field(default=None, ge=0)
    """The line to start at (1-based; for notebooks, the cell). Only needed for files too large to read at once."""
    limit: int | None = Field(default=None, ge=1)
    """How many lines (for notebooks, cells) to read. Only needed for files too large to read at once."""
    pages: str | None = None
    """For PDFs only: the pages to read, e.g. "3", "1-5" or "2,4-6" (at most 20 per call)."""


class ReadTool(Tool[ReadInput]):
    name = "Read"
    description = DESCRIPTION.format(
        lines=_DEFAULTS.max_read_lines,
        default_chars=f"{_DEFAULTS.max_default_read_chars:,}",
        size=human_size(_DEFAULTS.max_file_bytes),
        line_chars=_DEFAULTS.max_line_chars,
        pdf_pages=PDF_PAGES_WHOLE,
        pdf_per_read=PDF_PAGES_PER_READ,
    )
    kind = "read"
    annotations = READ_ONLY
    Input = ReadInput
    rule_field = "file_path"
    rule_kind = "path"

    async def run(self, params: ReadInput, ctx: ToolContext) -> ToolResult:
        return await asyncio.to_thread(read_file, params, ctx)


def read_file(params: ReadInput, ctx: ToolContext) -> ToolResult:
    """The whole of Read, synchronous (it runs in a worker thread).

    A binary file is recorded as read even though its content is refused: the model now knows what it
    is, and Write may replace it (otherwise "Read it first" would be a dead end).
    """
    where = read_target(ctx, params.file_path)
    not_a_directory(where)
    try:
        info = where.real.stat()
    except FileNotFoundError:
        raise not_found(ctx, where) from None
    if not stat.S_ISREG(info.st_mode):
        raise ToolError("BINARY_FILE", f"'{where.shown}' is not a regular file (a device, socket or pipe)")
    if is_image(where.real):
        image, data = image_content(where.real, where.shown, ctx.sandbox.limits.max_image_bytes)
        remember(ctx, where, data)
        size = human_size(len(data))
        return ToolResult.ok(
            f"Image '{where.shown}' ({image.media_type}, {size}) is attached.",
            summary=f"Read {where.shown} (image, {size})",
            images=(image,),
        )
    is_pdf = where.real.suffix.lower() == ".pdf"
    if params.pages is not None and not is_pdf:
        raise ToolError(
            "INVALID_ARGS",
            f"pages only applies to PDF files and '{where.shown}' is not one; use offset and limit",
        )
    if is_pdf:
        check_pdf_size(info.st_size, where.shown)
        data = where.real.read_bytes()
        remember(ctx, where, data)
        content, summary = pdf_text(data, where.shown, params.pages, READ_OUTPUT_CHARS)
        return ToolResult.ok(content, summary=summary)
    if where.real.suffix.lower() == ".ipynb":
        result = read_notebook(params.offset, params.limit, ctx, where)
        if result is not None:
            return result
    if known_binary(where.real):
        remember(ctx, where)
        raise binary_error(where.real, where.shown)
    return _read_text(params, ctx, where, info.st_size)


def _read_text(params: ReadInput, ctx: ToolContext, where: Target, size: int) -> ToolResult:
    limits = ctx.sandbox.limits
    start = max(params.offset or 1, 1)
    limit = params.limit or limits.max_read_lines
    ceiling = READ_OUTPUT_CHARS if params.limit else limits.max_default_read_chars
    budget = min(ceiling, limits.max_file_bytes)
    if size == 0:
        remember(ctx, where, b"")
        return ToolResult.ok(f"'{where.shown}' is empty (0 bytes).", summary=f"Read {where.shown} (empty)")
    total: int | None = None
    if size <= limits.max_file_bytes:
        data = where.real.read_bytes()
        if is_binary(data):
            remember(ctx, where, data)
            raise binary_error(where.real, where.shown)
        detected = detect(data, ctx.sandbox.fallback_encoding)
        window = read_window(
            io.BytesIO(data),
            detected,
            start=start,
            limit=limit,
            line_chars=limits.max_line_chars,
            budget=budget,
        )
        total = count_lines(decode(data, ctx.sandbox.fallback_encoding).text)
        remember(ctx, where, data)
    elif params.offset is None and params.limit is None:
        raise ToolError(
            "FILE_TOO_LARGE",
            f"'{where.shown}' is {human_size(size)}, over the {human_size(limits.max_file_bytes)} limit for "
            "reading a whole file; pass offset and limit to read a part (e.g. offset=1, limit=200), "
            "or Grep to find the lines you need",
        )
    else:
        with open(where.real, "rb") as stream:
            sample = stream.read(SAMPLE_BYTES)
            if is_binary(sample):
                remember(ctx, where)
                raise binary_error(where.real, where.shown)
            detected = detect(sample, ctx.sandbox.fallback_encoding, whole=False)
            window = read_window(
                stream, detected, start=start, limit=limit, line_chars=limits.max_line_chars, budget=budget
            )
        remember(ctx, where)
    return _text_result(where, window, start=start, total=total, budget=budget)


def _text_result(where: Target, window: Window, *, start: int, total: int | None, budget: int) -> ToolResult:
    if not window.lines:
        length = window.lines_before
        return ToolResult.ok(
            f"'{where.shown}' has {length} lines; offset {start} is past the end. "
            f"Use an offset from 1 to {length}.",
            summary=f"Read {where.shown} (offset past the end)",
        )
    first, last = window.lines[0].number, window.lines[-1].number
    body = display(cat_n(window.lines))
    if window.more:
        of_total = f" of {total}" if total is not None else ""
        why = f" (output kept under {budget} characters)" if window.over_budget else ""
        body += f"\n\n[Showing lines {first}–{last}{of_total}{why}. Use offset={last + 1} to read more.]"
    whole = first == 1 and not window.more
    summary = f"Read {where.shown} ({last} lines)" if whole else f"Read {where.shown} lines {first}–{last}"
    return ToolResult.ok(body, summary=summary, data={"path": str(where.real), "first": first, "last": last})
