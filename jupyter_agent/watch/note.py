"""The since-last-turn note: what the user did in the kernel, as compact text plus a few figures.

It is added to the user message of a run — never to the system prompt, so the prompt-cache prefix stays
byte-identical across runs. Budgeted: a cap on characters, on cells listed, on frames per error and on the
number and size of images.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base.result import ImageContent
from ..builtin_tools.kernel.tracebacks import describe_exception
from ..masking import clip
from .watcher import CellRun, SinceLastLook, VariableChange


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
    more = " …" if len(cell.source.strip().splitlines()) > 1 else ""
    return f"  {count}{where}: {first}{more}"


def _variable_line(change: VariableChange) -> str:
    facts = change.facts
    if change.change == "deleted":
        return f"  deleted  {facts.name}"
    details = " ".join(part for part in (facts.type_name, facts.shape, facts.dtype) if part)
    value = f" = {facts.value}" if facts.value else ""
    return f"  {change.change:<8} {facts.name}  {details}{value}"


def render_note(seen: SinceLastLook, budget: NoteBudget | None = None) -> KernelNote | None:
    """None when nothing happened (no note at all, not an empty one)."""
    if seen.empty:
        return None
    budget = budget or NoteBudget()
    lines = ["<kernel-activity>", "Since your last turn, in the user's kernel:"]
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
