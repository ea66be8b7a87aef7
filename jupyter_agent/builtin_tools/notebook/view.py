"""How NotebookRead shows cells: whole when the notebook fits a budget, else an outline of ids and first lines.

Cells are rendered by `notebook.render` (the format Read uses for .ipynb files too); outputs are cut here
because the rules differ by kind: text keeps its head and tail, errors are shown whole (the traceback's
end is the point), and images are attached as image blocks up to a count and a size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from ...base.images import NotAnImage, decode_base64, image_content
from ...base.result import ImageContent
from ...masking import cap_text, shorten
from ...notebook.cells import Cell, joined
from ...notebook.render import render_cell, render_output

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
#: Images attached to one NotebookRead result; a plot costs the model about as much as 1,500 words.
MAX_IMAGES = 4
#: Output text per cell in the whole-notebook view (a single cell gets the tool's full output cap).
CELL_OUTPUT_CHARS = 2000
#: One error's traceback, shown whole up to this (a RecursionError's can be megabytes).
ERROR_CHARS = 20_000
#: The whole-notebook view stops being useful past these; the outline takes over.
FULL_VIEW_CHARS = 40_000
FULL_VIEW_CELLS = 100


@dataclass
class ImageBudget:
    max_bytes: int
    max_count: int = MAX_IMAGES
    images: list[ImageContent] = field(default_factory=list[ImageContent])

    def take(self, bundle: Mapping[str, Any]) -> str | None:
        """Attach the bundle's image if there is room; a note saying what happened, or None without an image."""
        mime = next((m for m in IMAGE_TYPES if m in bundle), None)
        if mime is None:
            return None
        raw = decode_base64(joined(bundle[mime]))
        if isinstance(raw, NotAnImage):
            return f"[{mime} output not attached: {raw.reason}]"
        if len(self.images) >= self.max_count:
            return (
                f"[{mime} not attached: only {self.max_count} images per NotebookRead; read its cell by id]"
            )
        if len(raw) > self.max_bytes:
            return f"[{mime} of {len(raw)} bytes not attached: over the {self.max_bytes}-byte cap]"
        image = image_content(raw)
        if isinstance(image, NotAnImage):
            return f"[{mime} output not attached: {image.reason}]"
        self.images.append(image)
        return f"[{image.media_type} attached as image {len(self.images)}]"


def render_outputs(outputs: Sequence[Mapping[str, Any]], *, text_chars: int, images: ImageBudget) -> str:
    """Text outputs (and image notes) in order, cut to `text_chars` head and tail; then errors, whole."""
    texts: list[str] = []
    errors: list[str] = []
    for output in outputs:
        shown = render_output(output).rstrip("\n")
        if output.get("output_type") == "error":
            errors.append(cap_text(shown, ERROR_CHARS))
            continue
        data = output.get("data")
        note = images.take(cast("Mapping[str, Any]", data)) if isinstance(data, Mapping) else None
        texts.append(f"{shown}\n{note}" if note else shown)
    body = cap_text("\n".join(texts), text_chars) if texts else ""
    return "\n".join(part for part in (body, *errors) if part)


def render_full(cell: Cell, index: int, *, text_chars: int, images: ImageBudget) -> str:
    """`<cell id=…>source</cell>` then `<outputs>…</outputs>`, as Read shows notebook cells."""
    head = render_cell({**cell.to_json(), "outputs": []}, index)
    if not cell.outputs:
        return head
    return (
        f"{head}\n<outputs>\n{render_outputs(cell.outputs, text_chars=text_chars, images=images)}\n</outputs>"
    )


def output_facts(outputs: Sequence[Mapping[str, Any]]) -> list[str]:
    """What a cell's outputs are and what reading them costs: `text 1,204 chars`, `image/png`, `error: KeyError`
    (so the model can choose which cells to read whole from an outline)."""
    text = 0
    kinds: list[str] = []
    for output in outputs:
        data = output.get("data")
        bundle: Mapping[str, Any] = cast("Mapping[str, Any]", data) if isinstance(data, Mapping) else {}
        if output.get("output_type") == "error":
            kinds.append(f"error: {output.get('ename', 'Error')}")
            continue
        image = next((mime for mime in IMAGE_TYPES if mime in bundle), None)
        if image is not None:
            kinds.append(image)
            continue
        text += len(render_output(output))
    return ([f"text {text:,} chars"] if text else []) + list(dict.fromkeys(kinds)) or ["empty"]


def outline_line(cell: Cell, index: int) -> str:
    """`  4  3f2a9c1b  code [12]  df = load(path)  (6 lines; 2 outputs: text 1,204 chars, error: KeyError)`."""
    count = (
        f" [{cell.execution_count if cell.execution_count is not None else ' '}]"
        if cell.cell_type == "code"
        else ""
    )
    first = cell.first_line
    first = shorten(first, 80)
    lines = len(cell.source.splitlines())
    facts = f"{lines} line{'s' if lines != 1 else ''}"
    if cell.outputs:
        many = len(cell.outputs)
        facts += f"; {many} output{'s' if many != 1 else ''}: {', '.join(output_facts(cell.outputs))}"
    return f"{index + 1:>4}  {cell.id}  {cell.cell_type}{count}  {first}  ({facts})"


def render_notebook_view(cells: Sequence[Cell], *, images: ImageBudget) -> tuple[str, bool]:
    """The whole notebook when it fits, else the outline; and whether it was whole (sources shown in full)."""
    if len(cells) <= FULL_VIEW_CELLS:
        pieces: list[str] = []
        used = 0
        trial = ImageBudget(max_bytes=images.max_bytes, max_count=images.max_count)
        for index, cell in enumerate(cells):
            piece = render_full(cell, index, text_chars=CELL_OUTPUT_CHARS, images=trial)
            used += len(piece) + 1
            if used > FULL_VIEW_CHARS:
                break
            pieces.append(piece)
        else:
            images.images.extend(trial.images)
            return "\n".join(pieces), True
    return "\n".join(outline_line(cell, index) for index, cell in enumerate(cells)), False
