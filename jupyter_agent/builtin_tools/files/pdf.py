"""PDFs for Read: the text of each page (pypdf), a range of pages at a time, capped like other reads."""

from __future__ import annotations

import io
import re

from ...base.errors import ToolError
from ...masking import cap_text
from .media import human_size

#: A PDF longer than this must be read with `pages`.
PDF_PAGES_WHOLE = 10
#: The most pages one Read returns.
PDF_PAGES_PER_READ = 20
PDF_MAX_BYTES = 64 * 1024 * 1024
_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def parse_pages(spec: str, count: int) -> list[int]:
    """`"3"`, `"1-5"`, `"2, 4-6"` → 1-based page numbers, in order; `INVALID_ARGS` naming the fix otherwise."""
    numbers: list[int] = []
    for part in spec.split(","):
        match = _RANGE.match(part)
        if match is None:
            raise ToolError(
                "INVALID_ARGS", f'pages {spec!r} is not a page range; write e.g. "3", "1-5" or "2,4-6"'
            )
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if first < 1 or last < first:
            raise ToolError("INVALID_ARGS", f"pages {spec!r}: a range goes from page 1 up, first page first")
        if first > count:
            raise ToolError("INVALID_ARGS", f"pages {spec!r}: the PDF has {count} page(s)")
        numbers += [n for n in range(first, min(last, count) + 1) if n not in numbers]
    if len(numbers) > PDF_PAGES_PER_READ:
        raise ToolError(
            "INVALID_ARGS",
            f"pages {spec!r} asks for {len(numbers)} pages; read at most {PDF_PAGES_PER_READ} per call",
        )
    return numbers


def check_pdf_size(size: int, shown: str) -> None:
    """Before reading the bytes: a PDF is parsed in memory."""
    if size > PDF_MAX_BYTES:
        raise ToolError(
            "FILE_TOO_LARGE",
            f"'{shown}' is {human_size(size)}, over the {human_size(PDF_MAX_BYTES)} limit for PDFs; "
            "extract the pages you need in the kernel (pypdf) instead",
        )


def pdf_text(data: bytes, shown: str, pages: str | None, max_chars: int) -> tuple[str, str]:
    """(text for the model, summary): each requested page's text under a `--- Page n of N ---` line."""
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ToolError("BINARY_FILE", f"'{shown}' is an encrypted PDF; it needs a password to be read")
        count = len(reader.pages)
        if pages is None:
            if count > PDF_PAGES_WHOLE:
                raise ToolError(
                    "INVALID_ARGS",
                    f"'{shown}' has {count} pages; pass pages to read part of it (e.g. pages=\"1-5\"), "
                    f"at most {PDF_PAGES_PER_READ} pages per call",
                )
            wanted = list(range(1, count + 1))
        else:
            wanted = parse_pages(pages, count)
        blocks: list[str] = []
        for number in wanted:
            text = (reader.pages[number - 1].extract_text() or "").strip()
            blocks.append(
                f"--- Page {number} of {count} ---\n{text or '(no text on this page: a scan or an image?)'}"
            )
    except ToolError:
        raise
    except Exception as exc:  # pypdf fails on malformed files in many ways; all mean "not a readable PDF"
        raise ToolError("BINARY_FILE", f"'{shown}' could not be read as a PDF: {exc}") from exc
    shown_pages = f"page {wanted[0]}" if len(wanted) == 1 else f"pages {wanted[0]}–{wanted[-1]}"
    if wanted and wanted != list(range(wanted[0], wanted[-1] + 1)):
        shown_pages = "pages " + ", ".join(str(n) for n in wanted)
    more = ""
    if wanted[-1] < count:
        more = f'\n\n[Showing {shown_pages} of {count}. Pass pages to read others, e.g. pages="{wanted[-1] + 1}-{min(wanted[-1] + 5, count)}".]'
    body = cap_text("\n\n".join(blocks), max_chars) + more
    return body, f"Read {shown} (PDF, {shown_pages} of {count})"
