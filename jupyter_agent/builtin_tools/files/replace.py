"""Exact string replacement that ignores CRLF vs LF when matching and leaves every untouched byte alone.

Matching runs on the text with CRLF folded to LF (the model's old_string usually has LF); each match is
mapped back to its span in the original text, and only those spans are rewritten, with the new text's
line breaks written the way the matched span had them. A file with mixed endings keeps them.
"""

from __future__ import annotations

import bisect
import difflib
import re
from dataclasses import dataclass

from ...base.errors import ToolError
from .text import Eol, dominant_eol, normalize_eol

_CRLF = re.compile(r"\r\n")
_MAX_LISTED = 20
_NEAR_LINES = 8
#: Bounds of the near-miss search (`_best_windows`).
_SIMILAR_CHARS = 200
_SIMILAR_CANDIDATES = 20


@dataclass(frozen=True, kw_only=True)
class Replaced:
    text: str
    #: 1-based line where each replaced occurrence starts (same in the old and new text for the first one).
    lines: tuple[int, ...]


class _Folded:
    """The text with CRLF folded to LF, and where the folded newlines were CRLF (to map spans back)."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.crlf = [m.start() - k for k, m in enumerate(_CRLF.finditer(raw))]
        self.text = normalize_eol(raw) if self.crlf else raw

    def raw_index(self, index: int) -> int:
        return index + bisect.bisect_left(self.crlf, index)


def _occurrences(text: str, needle: str) -> list[int]:
    found: list[int] = []
    start = text.find(needle)
    while start != -1:
        found.append(start)
        start = text.find(needle, start + len(needle))
    return found


def _line_numbers(text: str, positions: list[int]) -> tuple[int, ...]:
    numbers: list[int] = []
    line, last = 1, 0
    for pos in positions:
        line += text.count("\n", last, pos)
        last = pos
        numbers.append(line)
    return tuple(numbers)


def replace(
    raw: str, old: str, new: str, *, replace_all: bool, shown: str, noun: str = "file", reader: str = "Read"
) -> Replaced:
    """`raw` with `old` replaced by `new`; `TEXT_NOT_FOUND` / `TEXT_MULTIPLE_MATCHES` otherwise.

    `noun` and `reader` name what the text is and the tool that shows it (a notebook cell, NotebookRead)."""
    folded = _Folded(raw)
    needle, replacement = normalize_eol(old), normalize_eol(new)
    positions = _occurrences(folded.text, needle)
    if not positions:
        raise ToolError(
            "TEXT_NOT_FOUND", not_found_message(folded.text, needle, shown, noun=noun, reader=reader)
        )
    lines = _line_numbers(folded.text, positions)
    if len(positions) > 1 and not replace_all:
        listed = ", ".join(str(n) for n in lines[:_MAX_LISTED]) + (", …" if len(lines) > _MAX_LISTED else "")
        raise ToolError(
            "TEXT_MULTIPLE_MATCHES",
            f"old_string appears {len(positions)} times in '{shown}' (at lines {listed}); "
            "add surrounding lines to old_string to make it unique, or set replace_all to change every one",
        )
    fallback = dominant_eol(raw)
    pieces: list[str] = []
    done = 0
    for pos in positions:
        start, end = folded.raw_index(pos), folded.raw_index(pos + len(needle))
        span = raw[start:end]
        eol: Eol = "\r\n" if "\r\n" in span else "\n" if "\n" in span else fallback
        pieces += [raw[done:start], replacement if eol == "\n" else replacement.replace("\n", "\r\n")]
        done = end
    pieces.append(raw[done:])
    return Replaced(text="".join(pieces), lines=lines)


def _best_windows(lines: list[str], wanted: list[str]) -> list[tuple[float, int]]:
    """(score, first line index) of the file windows most like `wanted`, best first.

    Bounded, since it only makes a hint: difflib's matching grows far faster than the length on repetitive
    text (two 4,000-character lines took minutes), so it compares at most `_SIMILAR_CHARS` characters of a
    line or window, and runs the full comparison on the `_SIMILAR_CANDIDATES` lines its quick bound ranks best.
    """
    probe_at = next((i for i, line in enumerate(wanted) if line.strip()), 0)
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(wanted[probe_at].strip()[:_SIMILAR_CHARS])  # cut-ok: compared, not shown
    bounded: list[tuple[float, int]] = []
    for index, line in enumerate(lines):
        matcher.set_seq1(line.strip()[:_SIMILAR_CHARS])  # cut-ok: compared, not shown
        if matcher.real_quick_ratio() >= 0.5 and (bound := matcher.quick_ratio()) >= 0.5:
            bounded.append((bound, index))
    bounded.sort(key=lambda item: -item[0])
    scored: list[tuple[float, int]] = []
    for _, index in bounded[:_SIMILAR_CANDIDATES]:
        matcher.set_seq1(lines[index].strip()[:_SIMILAR_CHARS])  # cut-ok: compared, not shown
        ratio = matcher.ratio()
        if ratio >= 0.5:
            scored.append((ratio, index - probe_at))
    scored.sort(key=lambda item: -item[0])
    target = "\n".join(wanted)[:_SIMILAR_CHARS]  # cut-ok: compared, not shown
    rescored: list[tuple[float, int]] = []
    for start in dict.fromkeys(max(start, 0) for _, start in scored[:10]):
        window = "\n".join(lines[start : start + len(wanted)])[:_SIMILAR_CHARS]  # cut-ok: compared, not shown
        rescored.append((difflib.SequenceMatcher(None, target, window, autojunk=False).ratio(), start))
    rescored.sort(key=lambda item: (-item[0], item[1]))
    if not rescored:
        return []
    floor = max(0.5, rescored[0][0] - 0.1)  # a clearly better candidate hides the weak ones
    return [item for item in rescored if item[0] >= floor][:3]


#: Longer old_strings are not searched whitespace-insensitively (the pattern grows with the text).
_LOOSE_MAX = 4000


def _loose_matches(text: str, needle: str) -> list[int]:
    """0-based first lines where `needle` matches if whitespace is ignored (up to 3), e.g. inside a long line."""
    chars = [c for c in needle if not c.isspace()]
    if not chars or len(needle) > _LOOSE_MAX:
        return []
    pattern = re.compile(r"\s*".join(re.escape(c) for c in chars))
    starts: list[int] = []
    for match in pattern.finditer(text):
        line = text.count("\n", 0, match.start())
        if line not in starts:
            starts.append(line)
        if len(starts) == 3:
            break
    return starts


def not_found_message(text: str, needle: str, shown: str, *, noun: str = "file", reader: str = "Read") -> str:
    """What the model needs to fix its old_string: the closest text in the file, with line numbers.

    Text that matches except for whitespace is found exactly (the similarity search compares whole lines, so
    a short old_string inside a long line would point elsewhere); otherwise the most similar lines are shown.
    """
    message = (
        f"old_string was not found in '{shown}'. It must match the {noun} exactly, including whitespace "
        "and indentation"
        + (" (the line numbers Read shows are not part of the file)." if reader == "Read" else ".")
    )
    if "\ufffd" in needle and any("\udc80" <= ch <= "\udcff" for ch in text):
        message += (
            f" The {noun} has bytes its encoding does not define, which Read shows as '\ufffd'; old_string cannot "
            "match them: start or end old_string next to them instead."
        )
    lines = text.split("\n")
    wanted = needle.split("\n")
    loose = _loose_matches(text, needle)
    if loose:
        message += (
            " It does match if whitespace is ignored: check indentation (tabs vs spaces) and trailing spaces."
        )
        starts = loose
    else:
        starts = [start for _, start in _best_windows(lines, wanted)]
    if not starts:
        return (
            message
            + f" No similar lines were found; {reader} the {noun} and copy old_string from it exactly."
        )
    blocks: list[str] = []
    for start in starts:
        shown_lines = lines[start : start + min(len(wanted), _NEAR_LINES)]
        blocks.append("\n".join(f"{start + i + 1:>6}\t{line}" for i, line in enumerate(shown_lines)))
    where = "line" if len(starts) == 1 else "lines"
    numbers = ", ".join(str(start + 1) for start in starts)
    return (
        f"{message} The closest text is at {where} {numbers}:\n"
        + "\n---\n".join(blocks)
        + f"\nCopy old_string from the {noun} exactly ({reader} it again if it may have changed)."
    )
