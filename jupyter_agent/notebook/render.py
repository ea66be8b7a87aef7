"""A notebook's cells as text a model reads well: ids, types, execution counts, sources, outputs cut to a budget.

Works on anything shaped like nbformat v4 JSON (an `nbformat.NotebookNode` or a plain dict), so the file
backend, the live backend and Read all show cells the same way. Rich outputs are named, not dumped: an
image is `[image/png output, 14.2 KB]`, HTML is shown only when there is no plain text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..masking import cap_text
from .cells import joined

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_TAG = re.compile(r"<[^>]+>")
DEFAULT_OUTPUT_CHARS = 2000
DEFAULT_TOTAL_CHARS = 60_000


@dataclass(frozen=True, kw_only=True)
class RenderedNotebook:
    """`text` shows cells `first`..`last` (0-based, inclusive) of `total`; `last < first` when none were shown."""

    text: str
    first: int
    last: int
    total: int


def cell_id(cell: Mapping[str, Any], index: int) -> str:
    """The cell's nbformat id; notebooks older than format 4.5 have none, so `cell-<index>` stands in."""
    value = cell.get("id")
    return str(value) if value else f"cell-{index}"


def source_of(cell: Mapping[str, Any]) -> str:
    return joined(cell.get("source", ""))


def _size(text: str) -> str:
    size = len(text) * 3 / 4  # base64
    return f"{size / 1024:.1f} KB" if size >= 1024 else f"{int(size)} B"


def _render_data(data: Mapping[str, Any]) -> list[str]:
    parts: list[str] = []
    if "text/plain" in data:
        parts.append(joined(data["text/plain"]))
    elif "text/markdown" in data:
        parts.append(joined(data["text/markdown"]))
    elif "text/html" in data:
        parts.append("[text/html] " + _TAG.sub("", joined(data["text/html"])).strip())
    for mime, value in data.items():
        if mime.startswith("image/"):
            parts.append(f"[{mime} output, {_size(joined(value))}]")
        elif mime not in ("text/plain", "text/markdown", "text/html"):
            parts.append(f"[{mime} output]")
    return parts


def render_output(output: Mapping[str, Any]) -> str:
    """One output as plain text (ANSI colours removed)."""
    kind = output.get("output_type")
    if kind == "stream":
        text = joined(output.get("text", ""))
        return text if output.get("name") != "stderr" else "[stderr]\n" + text
    if kind == "error":
        traceback = "\n".join(joined(line) for line in output.get("traceback", []))
        head = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
        return _ANSI.sub("", traceback) if traceback else head
    if kind in ("execute_result", "display_data"):
        data: Mapping[str, Any] = output.get("data", {})
        return _ANSI.sub("", "\n".join(_render_data(data)))
    return f"[{kind} output]"


def render_cell(cell: Mapping[str, Any], index: int, *, output_chars: int = DEFAULT_OUTPUT_CHARS) -> str:
    """`<cell id=… type=… …>source</cell>` then the outputs, cut to `output_chars` keeping head and tail."""
    kind = str(cell.get("cell_type", "code"))
    attrs = f'id="{cell_id(cell, index)}" index="{index + 1}" type="{kind}"'
    if kind == "code":
        count = cell.get("execution_count")
        attrs += f' execution_count="{count}"' if count is not None else ' execution_count=""'
    parts = [f"<cell {attrs}>", source_of(cell).rstrip("\n"), "</cell>"]
    outputs: Sequence[Mapping[str, Any]] = cell.get("outputs", []) or []
    if outputs:
        body = "\n".join(render_output(out).rstrip("\n") for out in outputs)
        parts += ["<outputs>", cap_text(body, output_chars), "</outputs>"]
    return "\n".join(parts)


def render_notebook(
    nb: Mapping[str, Any],
    *,
    start: int = 0,
    count: int | None = None,
    output_chars: int = DEFAULT_OUTPUT_CHARS,
    total_chars: int = DEFAULT_TOTAL_CHARS,
) -> RenderedNotebook:
    """Cells from `start` (0-based), at most `count` of them, stopping before the text passes `total_chars`.

    The first requested cell is always shown (its outputs are already capped), so progress is possible.
    """
    cells: Sequence[Mapping[str, Any]] = nb.get("cells", [])
    stop = len(cells) if count is None else min(len(cells), start + count)
    pieces: list[str] = []
    used = 0
    last = start - 1
    for index in range(start, stop):
        piece = render_cell(cells[index], index, output_chars=output_chars)
        if pieces and used + len(piece) > total_chars:
            break
        pieces.append(piece)
        used += len(piece) + 1
        last = index
    return RenderedNotebook(text="\n".join(pieces), first=start, last=last, total=len(cells))


def language_of(nb: Mapping[str, Any]) -> str:
    metadata: Mapping[str, Any] = nb.get("metadata", {}) or {}
    info: Mapping[str, Any] = metadata.get("language_info", {}) or {}
    kernel: Mapping[str, Any] = metadata.get("kernelspec", {}) or {}
    return str(info.get("name") or kernel.get("language") or "unknown")
