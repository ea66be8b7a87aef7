"""The since-last-turn note: what the user did in the kernel, as compact text plus a few figures.

It is added to the user message of a run — never to the system prompt, so the prompt-cache prefix stays
byte-identical across runs. Budgeted: a cap on characters, on cells listed, on frames per error and on the
number and size of images.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..base.result import ImageContent
from ..builtin_tools.kernel.tracebacks import describe_exception
from ..masking import clip
from .watcher import CellRun, SinceLastLook, VariableChange

if TYPE_CHECKING:
    from ..tools.context import ToolContext


@dataclass(frozen=True, kw_only=True)
class NoteBudget:
    chars: int = 4_000
    cells: int = 12
    frames_per_error: int = 2
    images: int = 2
    #: base64 characters per image (~1 MB); bigger figures are mentioned, not attached.
    image_chars: int = 1_400_000


@dataclass(frozen=True, kw_only=True)
class KernelNote:
    text: str
    images: tuple[ImageContent, ...] = ()


def _cell_line(cell: CellRun) -> str:
    count = f"[{cell.execution_count}]" if cell.execution_count is not None else "[ ]"
    where = f" cell {cell.cell_id}" if cell.cell_id else ""
    first = clip(cell.first_line, 99)
    more = " …" if len(cell.own_lines) > 1 else ""
    return f"  {count}{where}: {first}{more}"


def _variable_line(change: VariableChange) -> str:
    facts = change.facts
    if change.change == "deleted":
        return f"  deleted  {facts.name}"
    details = " ".join(part for part in (facts.type_name, facts.shape, facts.dtype) if part)
    value = f" = {facts.value}" if facts.value else ""
    return f"  {change.change:<8} {facts.name}  {details}{value}"


def render_note(
    seen: SinceLastLook, budget: NoteBudget | None = None, *, edited: Sequence[str] = ()
) -> KernelNote | None:
    """None when nothing happened (no note at all, not an empty one). `edited`: ids of cells the model read
    that were changed since (`cells_edited_since_read`)."""
    if seen.empty and not edited:
        return None
    budget = budget or NoteBudget()
    lines = ["<kernel-activity>", "Since your last turn, in the user's kernel:"]
    if edited:
        shown_ids = ", ".join(f"'{cell_id}'" for cell_id in edited[: budget.cells])
        more = f" and {len(edited) - budget.cells} more" if len(edited) > budget.cells else ""
        lines.append(
            f"Cells you read that were edited since (read them again before editing): {shown_ids}{more}"
        )
    if seen.cells:
        shown = seen.cells[-budget.cells :]
        skipped = len(seen.cells) - len(shown) + seen.cells_dropped
        lines.append("Cells the user ran (oldest first):")
        if skipped:
            lines.append(f"  ({skipped} earlier cell(s) not listed)")
        for cell in shown:
            lines.append(_cell_line(cell))
            if cell.error is not None:
                error = describe_exception(cell.error, innermost=budget.frames_per_error, context=1)
                lines.extend("      " + line for line in ("raised " + error).splitlines())
    if seen.variables:
        lines.append("Variables:")
        lines.extend(_variable_line(change) for change in seen.variables)
    images: list[ImageContent] = []
    if seen.figures:
        attached = [f for f in seen.figures if len(f.data) <= budget.image_chars][-budget.images :]
        images = [ImageContent(media_type=f.media_type, data=f.data) for f in attached]
        counts = sorted({f"[{f.execution_count}]" for f in seen.figures if f.execution_count is not None})
        where = f" by cell(s) {', '.join(counts)}" if counts else ""
        lines.append(
            f"Figures: {len(seen.figures)} displayed{where}; the newest {len(images)} attached below."
            if images
            else f"Figures: {len(seen.figures)} displayed{where} (too large to attach)."
        )
    lines.append("</kernel-activity>")
    text = "\n".join(lines)  # clip masks before it cuts; the sinks mask what is sent or shown
    if len(text) > budget.chars:
        tail = f"\n… [{len(text)} characters in all, cut to the budget]\n</kernel-activity>"
        text = clip(text, budget.chars - len(tail), marker=tail)
    return KernelNote(text=text, images=tuple(images))


async def note_blocks(seen: SinceLastLook | None, ctx: ToolContext) -> list[dict[str, Any]]:
    """The note as content blocks after the request (never in the system prompt: the cache holds), with the
    cells edited since the model read them; on the worker, where the live notebook can be read."""
    from ..builtin_tools.notebook.common import cells_edited_since_read

    if seen is None:
        return []
    note = render_note(seen, edited=await cells_edited_since_read(ctx))
    if note is None:
        return []
    # masked where it leaves: the request body, the session file, a display
    return [{"type": "text", "text": note.text}, *(image.to_block() for image in note.images)]
