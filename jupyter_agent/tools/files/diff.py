"""Unified diffs with +/− counts, for file edits and notebook cells alike (the UI colours them; cards show counts)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

_NO_EOL = "\\ No newline at end of file\n"
#: Above this many characters on either side difflib gets slow; the change is then shown as a whole-file rewrite.
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
    """The unified diff from `before` to `after`, labelled `a/<name>` and `b/<name>`; long diffs keep their head."""
    header = f"--- a/{name}\n+++ b/{name}\n"
    if len(before) > MAX_DIFF_INPUT or len(after) > MAX_DIFF_INPUT:
        removed, added = len(_lines(before)), len(_lines(after))
        note = f"@@ -1,{removed} +1,{added} @@\n(too large to diff line by line: {removed} lines → {added} lines)\n"
        return Diff(text=header + note, added=added, removed=removed)
    added = removed = 0
    out: list[str] = []
    used = 0
    lines = difflib.unified_diff(
        _lines(before), _lines(after), fromfile=f"a/{name}", tofile=f"b/{name}", n=context
    )
    for index, line in enumerate(lines):
        if index >= 2:  # the first two are the `---`/`+++` headers
            added += line.startswith("+")
            removed += line.startswith("-")
        if used <= max_chars:
            text = line if line.endswith("\n") else line + "\n"
            used += len(text)
            out.append(text if used <= max_chars else "… [diff cut: it is longer than shown]\n")
    return Diff(text="".join(out), added=added, removed=removed)
