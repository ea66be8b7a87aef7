"""A window of numbered lines from a byte stream, read without holding more than the window in memory.

Lines end at `\\n` (a `\\r` before it is dropped), as ripgrep and Edit count them. To start deep in a
UTF-8 (or 8-bit) file we count newline bytes in 1 MiB chunks and seek, so reading lines 9,999,000–9,999,100 of a
1 GB log touches each byte once and keeps one chunk in memory. A line is read in pieces of at most
`line_chars` characters; the rest of an overlong line is counted, not kept.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import BinaryIO

from .encoding import Detected

_CHUNK = 1 << 20
_SKIP_PIECE = 1 << 16


@dataclass(frozen=True, kw_only=True)
class Line:
    number: int
    text: str
    #: Characters dropped from the end of an overlong line.
    cut: int = 0


@dataclass(kw_only=True)
class Window:
    """The lines read; `lines_before` counts the lines before them (the file's length when `start` is past it)."""

    lines: list[Line] = field(default_factory=list[Line])
    lines_before: int = 0
    #: True when at least one more line follows the window.
    more: bool = False
    #: True when the window stopped early because the character budget was spent.
    over_budget: bool = False


def _skip_lines(stream: BinaryIO, count: int) -> int:
    """Seek past `count` lines by counting newline bytes; returns how many lines were actually skipped.

    When the file has fewer lines, the stream is left just after the last newline, so a final line without one
    is still there to be read and counted."""
    skipped = 0
    resume = stream.tell()
    while skipped < count:
        position = stream.tell()
        chunk = stream.read(_CHUNK)
        if not chunk:
            stream.seek(resume)
            return skipped
        newlines = chunk.count(b"\n")
        if skipped + newlines < count:
            skipped += newlines
            if newlines:
                resume = position + chunk.rindex(b"\n") + 1
            continue
        index = -1
        for _ in range(count - skipped):
            index = chunk.index(b"\n", index + 1)
        stream.seek(position + index + 1)
        return count
    return skipped


class _LineReader:
    """`readline` in bounded pieces over a text stream that splits on `\\n` only."""

    def __init__(self, text: io.TextIOWrapper, line_chars: int) -> None:
        self.text = text
        self.line_chars = line_chars

    def next(self) -> Line | None:
        """The next line (number unset: 0), or None at the end of the stream."""
        piece = self.text.readline(self.line_chars + 1)
        if not piece:
            return None
        if piece.endswith("\n") or len(piece) <= self.line_chars:
            return Line(number=0, text=_strip_eol(piece))
        cut = len(piece) - self.line_chars
        kept = piece[: self.line_chars]
        while not piece.endswith("\n"):
            piece = self.text.readline(_SKIP_PIECE)
            if not piece:
                break
            cut += len(piece)
        cut -= len(piece) - len(_strip_eol(piece)) if piece.endswith("\n") else 0
        return Line(number=0, text=kept, cut=cut)


def _strip_eol(piece: str) -> str:
    if piece.endswith("\r\n"):
        return piece[:-2]
    return piece[:-1] if piece.endswith("\n") else piece


def read_window(
    stream: BinaryIO, detected: Detected, *, start: int, limit: int, line_chars: int, budget: int
) -> Window:
    """Lines `start`..`start+limit-1` (1-based) of `stream` in the `detected` encoding, stopping once their text
    passes `budget` chars. Bytes the encoding does not define show as U+FFFD."""
    encoding = detected.encoding
    stream.seek(len(detected.bom))
    window = Window()
    before = 0
    if _newline_is_one_byte(encoding) and start > 1:
        before = _skip_lines(stream, start - 1)
    text = io.TextIOWrapper(stream, encoding=encoding, errors="replace", newline="\n")  # type: ignore[arg-type]
    reader = _LineReader(text, line_chars)
    while before < start - 1 and reader.next() is not None:
        before += 1
    window.lines_before = before
    used = 0
    while (line := reader.next()) is not None:
        if len(window.lines) >= limit or (window.lines and used + len(line.text) > budget):
            window.more = True
            window.over_budget = len(window.lines) < limit
            break
        number = before + len(window.lines) + 1
        window.lines.append(Line(number=number, text=line.text, cut=line.cut))
        used += len(line.text) + 8
    text.detach()
    return window


def _newline_is_one_byte(encoding: str) -> bool:
    """Whether a `\\n` byte always is a newline in this encoding (UTF-8 and the 8-bit codecs, not UTF-16/32)."""
    return "\n".encode(encoding) == b"\n" and not encoding.startswith(
        ("utf-16", "utf-32", "utf_16", "utf_32")
    )


def count_lines(text: str) -> int:
    """Lines as `read_window` counts them: a final newline does not start another line."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def cat_n(lines: list[Line]) -> str:
    """`cat -n` style: the number right-aligned in six columns, a tab, the line; cut lines say how much is missing."""
    out: list[str] = []
    for line in lines:
        marker = f"… [line cut: {line.cut} more characters]" if line.cut else ""
        out.append(f"{line.number:>6}\t{line.text}{marker}")
    return "\n".join(out)
