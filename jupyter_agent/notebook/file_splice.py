"""Where each cell of a notebook file is in its bytes, and a changed notebook written by splicing only what changed.

A 24 MB notebook of 2,000 cells is mostly outputs the agent never touches. Serializing all of it again for a
one-cell edit costs more than the edit (and re-indents JSON nobody changed); so the file is scanned once — the
top-level object by hand, every value (each cell whole) by `json`'s own C scanner, so it costs what `json.loads`
costs — and each cell's byte span is kept. A write is then the file's bytes before the first cell, each cell's
own bytes (kept) or its new JSON (`Layout.dump_cell`), and the bytes after the last cell. For a file in its own
layout that is byte for byte what serializing the whole notebook gives (tests/unit/notebook).

A file the scan does not understand (another encoding than UTF-8, a top level that is not a plain object) has no
spans; it is parsed and written whole, as before.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from .layout import Layout

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()

#: A cell's bytes in the file, `data[start:end]` (None: the cell's JSON was changed when the file was read).
Span = tuple[int, int] | None


@dataclass(frozen=True, kw_only=True)
class Scanned:
    """The notebook as `json.loads` gives it, and the byte span of each element of its `cells` list."""

    nb: dict[str, Any]
    spans: list[Span]


def scan(data: bytes) -> Scanned | None:
    """The notebook and its cells' spans; None when the bytes are not a UTF-8 JSON object this scan follows
    (`json.loads` then parses them, and says what is wrong)."""
    bom = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        text = data[bom:].decode("utf-8")
        found = _scan_text(text)
    except (ValueError, IndexError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
    if found is None:
        return None
    nb, char_spans = found
    return Scanned(nb=nb, spans=_byte_spans(text, char_spans, bom))


def _space(text: str, at: int) -> int:
    match = _SPACE.match(text, at)
    assert match is not None  # `*` matches the empty string
    return match.end()


def _scan_text(text: str) -> tuple[dict[str, Any], list[tuple[int, int]]] | None:
    at = _space(text, 0)
    if text[at] != "{":
        return None
    nb: dict[str, Any] = {}
    spans: list[tuple[int, int]] = []
    at = _space(text, at + 1)
    while text[at] != "}":
        if text[at] != '"':
            return None
        key, at = _DECODER.raw_decode(text, at)
        at = _space(text, at)
        if text[at] != ":":
            return None
        at = _space(text, at + 1)
        if key == "cells" and text[at] == "[":
            nb[key], spans, at = _scan_cells(text, at)
        else:
            nb[key], at = _DECODER.raw_decode(text, at)
        at = _space(text, at)
        if text[at] == ",":
            at = _space(text, at + 1)
        elif text[at] != "}":
            return None
    return (nb, spans) if _space(text, at + 1) == len(text) else None


def _scan_cells(text: str, at: int) -> tuple[list[Any], list[tuple[int, int]], int]:
    """The list starting at `text[at] == "["`, each element's span, and where the list ends."""
    cells: list[Any] = []
    spans: list[tuple[int, int]] = []
    at = _space(text, at + 1)
    if text[at] == "]":
        return cells, spans, at + 1
    while True:
        value, end = _DECODER.raw_decode(text, at)
        cells.append(value)
        spans.append((at, end))
        at = _space(text, end)
        if text[at] == "]":
            return cells, spans, at + 1
        if text[at] != ",":
            raise ValueError(f"expected ',' or ']' at {at}")
        at = _space(text, at + 1)


def _byte_spans(text: str, spans: list[tuple[int, int]], bom: int) -> list[Span]:
    """Character offsets in the decoded text → byte offsets in the file."""
    if text.isascii():
        return [(start + bom, end + bom) for start, end in spans]
    found: list[Span] = []
    char, byte = 0, bom
    for start, end in spans:
        byte += len(text[char:start].encode("utf-8"))
        first = byte
        byte += len(text[start:end].encode("utf-8"))
        found.append((first, byte))
        char = end
    return found


@dataclass(frozen=True, kw_only=True)
class Spliced:
    """The new bytes, the spans of the new cells in them, and how many bytes at the start (`head`) and at the
    end (`tail`) are the old file's, unchanged (what the undo journal keeps is the rest)."""

    data: bytes
    spans: list[Span]
    head: int
    tail: int


def splice(
    data: bytes, spans: Sequence[Span], old: Sequence[Any], new: Sequence[Any], layout: Layout
) -> Spliced | None:
    """The file's bytes with the cell list `old` (what `data` holds, `spans` its cells' spans) replaced by `new`:
    a cell of `new` that is one of `old` (the same object) with a span keeps its bytes, any other is written in
    `layout`. None when there is no frame to splice into (no cell before or after: the caller writes the whole
    file). Cells kept one after the other are one piece, with what the file had between them."""
    if not old or not new or len(spans) != len(old) or spans[0] is None or spans[-1] is None:
        return None
    position = {id(cell): index for index, cell in enumerate(old) if spans[index] is not None}
    separator = _separator(data, spans, layout)
    view = memoryview(data)
    first, last = _start(spans[0]), _end(spans[-1])
    pieces: list[bytes | memoryview] = [view[:first]]
    new_spans: list[Span] = []
    at = first
    index = 0
    while index < len(new):
        if index:
            pieces.append(separator)
            at += len(separator)
        begin = position.get(id(new[index]))
        if begin is None:
            piece = layout.dump_cell(cast(dict[str, Any], new[index]))
            pieces.append(piece)
            new_spans.append((at, at + len(piece)))
            at += len(piece)
            index += 1
            continue
        end = begin  # the run of old cells kept in order: begin..end
        while (
            index + end - begin + 1 < len(new) and position.get(id(new[index + end - begin + 1])) == end + 1
        ):
            end += 1
        low, high = _start(spans[begin]), _end(spans[end])
        new_spans += [(at + s[0] - low, at + s[1] - low) for s in spans[begin : end + 1] if s is not None]
        pieces.append(view[low:high])
        at += high - low
        index += end - begin + 1
    pieces.append(view[last:])
    written = b"".join(pieces)
    same_head, same_tail = _unchanged_ends(data, spans, old, new, new_spans, len(written))
    return Spliced(data=written, spans=new_spans, head=same_head, tail=same_tail)


def _unchanged_ends(
    data: bytes,
    spans: Sequence[Span],
    old: Sequence[Any],
    new: Sequence[Any],
    new_spans: list[Span],
    size: int,
) -> tuple[int, int]:
    """Bytes at the start and the end both files share: up to the first cell that is not kept in its place, and
    from the last one (a lower bound: a little more may be the same)."""
    common = min(len(old), len(new))
    first = next(
        (i for i in range(common) if new[i] is not old[i] or spans[i] is None),
        common,
    )
    # Before the first cell not kept in place (it is at the same place in both), or else after the last one kept
    # (the shorter list ends there; or that cell's bytes are not known: its id was filled in on reading).
    head = _start(spans[first]) if first < common and spans[first] is not None else _end(new_spans[first - 1])
    last = next(
        (
            n
            for n in range(common - first)
            if new[len(new) - 1 - n] is not old[len(old) - 1 - n] or spans[len(old) - 1 - n] is None
        ),
        common - first,
    )
    tail = len(data) - (_start(spans[len(old) - last]) if last else _end(spans[-1]))
    return head, max(0, min(tail, min(len(data), size) - head))


def _start(span: Span) -> int:
    assert span is not None
    return span[0]


def _end(span: Span) -> int:
    assert span is not None
    return span[1]


def _separator(data: bytes, spans: Sequence[Span], layout: Layout) -> bytes:
    """What goes between two cells: as between the file's first two, else as the layout writes it."""
    if len(spans) > 1 and spans[0] is not None and spans[1] is not None:
        return data[spans[0][1] : spans[1][0]]
    return layout.cell_separator()
