"""Unified diffs with +/− counts, for file edits and notebook cells alike (the UI colours them; cards show counts)."""

from __future__ import annotations

from dataclasses import dataclass

from ...base.stopping import current_stop
from .linediff import grouped, matching_blocks, opcodes

_NO_EOL = "\\ No newline at end of file\n"
#: Above this many characters on either side the change is shown as a whole-file rewrite.
MAX_DIFF_INPUT = 16 * 1024 * 1024
#: The diff text kept for people (the counts stay exact); a 200 MB diff would only freeze the UI.
MAX_DIFF_CHARS = 200_000


@dataclass(frozen=True, kw_only=True)
class Diff:
    """`text` is a unified diff (empty when nothing changed); `added`/`removed` count changed lines."""

    text: str
    added: int
    removed: int

    @property
    def counts(self) -> str:
        """`+3 −1`, `+12`, `−4`, or `no changes` — what a card or a summary shows."""
        parts = [f"+{self.added}"] if self.added else []
        if self.removed:
            parts.append(f"−{self.removed}")
        return " ".join(parts) or "no changes"


def _lines(text: str) -> list[str]:
    """Lines with their endings (CRLF shown as LF); a last line without one is marked as git does."""
    lines = text.replace("\r\n", "\n").splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n" + _NO_EOL
    return lines


def unified_diff(
    before: str, after: str, name: str, *, context: int = 3, max_chars: int = MAX_DIFF_CHARS
) -> Diff:
    """The unified diff from `before` to `after`, labelled `a/<name>` and `b/<name>`; long diffs keep their head.

    Lines are matched by `linediff` (bounded time, checking the run's stop signal as it goes: a stopped run's
    Write stops diffing with INTERRUPTED); the counts are those of the diff shown.
    """
    header = f"--- a/{name}\n+++ b/{name}\n"
    if len(before) > MAX_DIFF_INPUT or len(after) > MAX_DIFF_INPUT:
        removed, added = len(_lines(before)), len(_lines(after))
        note = f"@@ -1,{removed} +1,{added} @@\n(too large to diff line by line: {removed} lines → {added} lines)\n"
        return Diff(text=header + note, added=added, removed=removed)
    old, new = _lines(before), _lines(after)
    codes = opcodes(matching_blocks(old, new, current_stop().halt_if_requested))
    removed = sum(i2 - i1 for tag, i1, i2, _, _ in codes if tag in ("replace", "delete"))
    added = sum(j2 - j1 for tag, _, _, j1, j2 in codes if tag in ("replace", "insert"))
    if not added and not removed:
        return Diff(text="", added=0, removed=0)
    out = [header]
    used = len(header)
    for group in grouped(codes, context):
        first, last = group[0], group[-1]
        hunk = [f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"]
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                hunk += [" " + line for line in old[i1:i2]]
                continue
            hunk += ["-" + line for line in old[i1:i2]]
            hunk += ["+" + line for line in new[j1:j2]]
        for line in hunk:
            used += len(line)
            if used > max_chars:
                out.append("… [diff cut: it is longer than shown]\n")
                return Diff(text="".join(out), added=added, removed=removed)
            out.append(line)
    return Diff(text="".join(out), added=added, removed=removed)


def _range(start: int, stop: int) -> str:
    """A hunk header's range as difflib writes it: `3`, `3,4`, or `2,0` for an empty one."""
    length = stop - start
    if length == 1:
        return f"{start + 1}"
    return f"{start + 1 if length else start},{length}"
