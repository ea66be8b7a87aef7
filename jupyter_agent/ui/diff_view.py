"""Unified diffs as coloured HTML with line numbers on both sides."""

from __future__ import annotations

import re

from .html import MUTED, esc

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_ROW = "display:flex;white-space:pre-wrap;word-break:break-word;"
_NUM = (
    f"display:inline-block;min-width:3.2em;padding-right:6px;text-align:right;color:{MUTED};user-select:none;"
)
_COLORS = {
    "+": "background:rgba(46,160,67,0.18);",
    "-": "background:rgba(248,81,73,0.18);",
    "@": "color:var(--jp-ui-font-color1,#212121);background:rgba(56,139,253,0.10);",
    " ": "",
}


def diff_counts(diff: str) -> tuple[int, int]:
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def diff_to_html(diff: str, *, max_lines: int = 400) -> str:
    rows: list[str] = []
    old = new = 0
    lines = diff.splitlines()
    for line in lines[:max_lines]:
        if line.startswith(("---", "+++", "\\ No newline")):
            continue  # diff-tool bookkeeping, not the change: a new cell's last line has no newline
        mark = line[:1] if line[:1] in "+-@ " else " "
        hunk = _HUNK.match(line)
        if hunk:
            old, new = int(hunk.group(1)), int(hunk.group(2))
            left = right = ""
        elif mark == "+":
            left, right = "", str(new)
            new += 1
        elif mark == "-":
            left, right = str(old), ""
            old += 1
        else:
            left, right = str(old), str(new)
            old += 1
            new += 1
        rows.append(
            f'<div style="{_ROW}{_COLORS[mark]}"><span style="{_NUM}">{left}</span>'
            f'<span style="{_NUM}">{right}</span><span>{esc(line)}</span></div>'
        )
    if len(lines) > max_lines:
        rows.append(f'<div style="{_ROW}{_COLORS["@"]}">… {len(lines) - max_lines} more diff lines</div>')
    return (
        '<div style="font-family:var(--jp-code-font-family,monospace);font-size:12px;line-height:1.4;'
        'border:1px solid var(--jp-border-color2,#ddd);border-radius:4px;overflow-x:auto;">'
        + "".join(rows)
        + "</div>"
    )
