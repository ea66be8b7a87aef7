"""Grep's result text: the shapes Claude Code's Grep prints, cut by head_limit and a character budget."""

from __future__ import annotations

from typing import Protocol

from ...base.result import ToolResult
from .access import hidden_note
from .hits import Hit, Hits, OutputMode


class _Shown(Protocol):
    @property
    def pattern(self) -> str: ...
    @property
    def head_limit(self) -> int | None: ...
    @property
    def offset(self) -> int: ...
    @property
    def line_numbers(self) -> bool: ...
    def context_lines(self) -> tuple[int, int]: ...


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def content_lines(lines: list[Hit], *, numbers: bool, separated: bool) -> list[str]:
    """`path:12:text` for matches, `path-13-text` for context, `--` between separate blocks (as rg prints)."""
    out: list[str] = []
    previous: Hit | None = None
    for hit in lines:
        if (
            separated
            and previous is not None
            and (hit.path != previous.path or hit.number != previous.number + 1)
        ):
            out.append("--")
        mark = ":" if hit.match else "-"
        out.append(
            f"{hit.path}{mark}{hit.number}{mark}{hit.text}" if numbers else f"{hit.path}{mark}{hit.text}"
        )
        previous = hit
    return out


def _take(entries: list[str], head_limit: int | None, max_chars: int) -> tuple[list[str], bool]:
    """The entries that fit: at most head_limit, and (always at least one) under max_chars; True if the budget cut.
    Whole entries only: a cut never falls inside a line."""
    wanted = entries[:head_limit] if head_limit else entries  # 0 means no limit, as in Claude Code
    taken: list[str] = []
    used = 0
    for entry in wanted:
        if taken and used + len(entry) + 1 > max_chars:
            return taken, True
        taken.append(entry)
        used += len(entry) + 1
    return taken, False


def render(hits: Hits, mode: OutputMode, params: _Shown, shown: str, max_chars: int) -> ToolResult:
    if mode == "files_with_matches":
        entries = hits.files
    elif mode == "count":
        entries = [f"{path}:{count}" for path, count in hits.counts]
    else:
        before, after = params.context_lines()
        entries = content_lines(hits.lines, numbers=params.line_numbers, separated=bool(before or after))
    notes = [hits.warnings] if hits.warnings else []
    if hits.hidden:
        notes.append(hidden_note(hits.hidden))
    if hits.cut:
        notes.append(
            "[ripgrep printed more than we keep, so these results are incomplete; narrow the search.]"
        )
    if not entries:
        text = "\n\n".join([f"No matches for {params.pattern!r} in '{shown}'.", *notes])
        return ToolResult.ok(text, summary="No matches")
    skip = params.offset
    if skip >= len(entries):
        text = f"The result has {len(entries)} {_noun(mode)}, none past offset={skip}; pass a smaller offset."
        return ToolResult.ok("\n\n".join([text, *notes]), summary=f"Nothing past offset {skip}")
    taken, over_budget = _take(entries[skip:], params.head_limit, max_chars)
    body = "\n".join(taken)
    end = skip + len(taken)
    if end < len(entries) or skip:
        notes.insert(0, _marker(mode, skip, end, len(entries), over_budget, params, max_chars))
    if mode == "files_with_matches":
        summary = f"Found {_plural(len(hits.files), 'file')}"
        body = f"{summary}\n{body}"
    elif mode == "count":
        total = sum(count for _, count in hits.counts)
        summary = f"Found {_plural(total, 'matching line')} in {_plural(len(hits.counts), 'file')}"
        notes.append(summary + ".")
    else:
        matches = sum(1 for hit in hits.lines if hit.match)
        files = len({hit.path for hit in hits.lines})
        summary = f"Found {_plural(matches, 'matching line')} in {_plural(files, 'file')}"
    return ToolResult.ok("\n\n".join([body, *notes]), summary=summary)


def _marker(
    mode: OutputMode, skip: int, end: int, total: int, over_budget: bool, params: _Shown, max_chars: int
) -> str:
    """Read's style: which entries these are, why they stop there, and the offset that shows the next ones."""
    why = [f"offset={skip}"] if skip else []
    if over_budget:
        why.append(f"output kept under {max_chars:,} characters")
    elif end < total:
        why.append(f"head_limit={params.head_limit}")
    shown = f"[Showing {_noun(mode)} {skip + 1}–{end} of {total}" + (f" ({'; '.join(why)})" if why else "")
    if end >= total:
        return shown + ".]"
    narrow = ", or narrow the search with path, glob or type" if over_budget else ""
    return f"{shown}. Use offset={end} to see the next ones{narrow}.]"


def _noun(mode: OutputMode) -> str:
    return {"files_with_matches": "files", "count": "files", "content": "lines"}[mode]
