"""NotebookEdit's notebook hygiene: moving a cell and clearing its outputs.

What the user approves is shown as text the diff view already colours: a move as the notebook's outline (one
line per cell, id and first line) before and after; cleared outputs as their text lines going away. The
undo of each is journaled as wire ops guarded by the source the agent left (`expect`), like every cell edit:
a move goes back after the cell's old neighbour, cleared outputs come back with their execution count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...base.json_values import is_array, is_object
from ...masking import clip
from ...notebook.cells import Cell, joined
from ..files.diff import Diff, unified_diff


def outline_line(cell: Cell) -> str:
    first = next((line.strip() for line in cell.source.splitlines() if line.strip()), "")
    return f"[{cell.cell_type}] {cell.id}: {clip(first, 80, marker='')}"


def moved(cells: Sequence[Cell], cell: Cell, after: Cell | None) -> list[Cell]:
    """The cells in the order the move leaves them (the same rule as the `move` op)."""
    rest = [c for c in cells if c.id != cell.id]
    at = 0 if after is None else next(i for i, c in enumerate(rest) if c.id == after.id) + 1
    return [*rest[:at], cell, *rest[at:]]


def move_diff(cells: Sequence[Cell], cell: Cell, after: Cell | None, label: str, *, context: int = 1) -> Diff:
    """The notebook's outline with the moved cell taken out where it was (`-`) and put in where it goes (`+`),
    a few neighbours around each: a line diff would as often mark the neighbours as the ones that moved."""
    rest = [c for c in cells if c.id != cell.id]
    old_at = next(i for i, c in enumerate(cells) if c.id == cell.id)
    new_at = next(i for i, c in enumerate(moved(cells, cell, after)) if c.id == cell.id)
    rows: list[tuple[str, str]] = []
    for k in range(len(rest) + 1):
        if k == new_at:
            rows.append(("+", outline_line(cell)))
        if k == old_at:
            rows.append(("-", outline_line(cell)))
        if k < len(rest):
            rows.append((" ", outline_line(rest[k])))
    changed = [i for i, (tag, _) in enumerate(rows) if tag != " "]
    shown = sorted({j for i in changed for j in range(i - context, i + context + 1) if 0 <= j < len(rows)})
    hunks: list[list[int]] = []
    for j in shown:
        if hunks and j == hunks[-1][-1] + 1:
            hunks[-1].append(j)
        else:
            hunks.append([j])
    out = [f"--- a/{label}\n+++ b/{label}\n"]
    for hunk in hunks:
        old_start = sum(1 for tag, _ in rows[: hunk[0]] if tag != "+") + 1
        new_start = sum(1 for tag, _ in rows[: hunk[0]] if tag != "-") + 1
        olds = sum(1 for j in hunk if rows[j][0] != "+")
        news = sum(1 for j in hunk if rows[j][0] != "-")
        out.append(f"@@ -{old_start},{olds} +{new_start},{news} @@\n")
        out.extend(f"{rows[j][0]}{rows[j][1]}\n" for j in hunk)
    return Diff(text="".join(out), added=1, removed=1)


def neighbour_before(cells: Sequence[Cell], cell: Cell) -> str | None:
    """The id of the cell right above `cell` (None: it is the first): where an undo puts it back."""
    index = next(i for i, c in enumerate(cells) if c.id == cell.id)
    return cells[index - 1].id if index > 0 else None


def outputs_text(outputs: Sequence[Mapping[str, Any]], execution_count: int | None) -> str:
    """The outputs as the lines a person recognises them by (text, the error line, a mark per image)."""
    lines: list[str] = [f"[{execution_count}]"] if execution_count is not None else []
    for output in outputs:
        kind = output.get("output_type")
        if kind == "stream":
            lines.extend(joined(output.get("text", "")).splitlines())
        elif kind == "error":
            lines.append(f"{output.get('ename', '')}: {output.get('evalue', '')}")
        else:
            data = output.get("data")
            bundle: Mapping[str, Any] = data if is_object(data) else {}
            text = joined(bundle.get("text/plain", ""))
            images = [mime for mime in bundle if str(mime).startswith("image/")]
            lines.extend(text.splitlines() if text else [])
            lines.extend(f"<{mime}>" for mime in images)
    return "".join(line + "\n" for line in lines)


def clear_diff(cell: Cell, label: str) -> Diff:
    """The outputs going away, labelled as the cell's outputs."""
    return unified_diff(outputs_text(cell.outputs, cell.execution_count), "", f"{label} (outputs)")


def has_outputs(cell: Cell) -> bool:
    return bool(cell.outputs) or cell.execution_count is not None


def outputs_of(cell_json: Mapping[str, Any] | None, cell: Cell) -> tuple[list[dict[str, Any]], int | None]:
    """The outputs and count a clear removed: from the op's result (the cell as it was), else from the read."""
    if cell_json is not None:
        outputs = cell_json.get("outputs")
        count = cell_json.get("execution_count")
        if is_array(outputs):
            return [dict(out) for out in outputs if is_object(out)], count if isinstance(count, int) else None
    return [dict(out) for out in cell.outputs], cell.execution_count


def joined_diff(first: Diff, second: Diff) -> Diff:
    return Diff(
        text=first.text + second.text,
        added=first.added + second.added,
        removed=first.removed + second.removed,
    )
