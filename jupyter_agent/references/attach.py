"""What a reference attaches to the request's user message: a variable's description, a cell, an output.

- `@name`: the variable as ListVariables lists it (type, shape, dtype, size) and as Inspect describes it
  (columns and dtypes, keys, the first rows) — the same hiding rules (private names, modules and IPython's
  own are not shown; a variable whose name says it holds a credential, `api_token`, `db_password`, gets its type
  and size only, never its value, whoever wrote the mention: you, a repository's command or skill, an MCP
  prompt), the same time caps on code the object runs (`__repr__`, properties), masked.
- `@cell:ID`: the cell as NotebookRead shows one cell (source, outputs; images as image blocks), from the
  page when the notebook is open. It counts as read, so the agent may edit it without reading it again.
- `@output:ID[:N]`: that cell's N-th output (from 1), or all of them: its text, or its image as an image block.

A reference that cannot be attached is not an error: the model is told in the same message, and the person
sees one line in the run's output (`note`). Attachments are content blocks of the request's user message,
never the system prompt, so the prompt cache holds.
"""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..agent.conversation import Block
from ..base.errors import ToolError
from ..base.json_values import is_object
from ..builtin_tools.kernel.capped import Deadline
from ..builtin_tools.kernel.describe import describe_variable, is_hidden
from ..builtin_tools.kernel.guards import CREDENTIAL_HIDDEN, names_credential
from ..builtin_tools.kernel.portraits import portray, type_path
from ..builtin_tools.notebook.common import ledger_key, open_notebook, shown
from ..builtin_tools.notebook.view import ImageBudget, render_full, render_outputs
from ..masking import cap_text
from ..notebook.base import Notebook
from ..notebook.cells import Cell
from ..tools.context import ToolContext
from .parse import MAX_REFERENCES, Reference, find_references

#: Characters of one attached reference, and of all of them together.
REFERENCE_CHARS = 6_000
TOTAL_CHARS = 30_000


@dataclass
class Attached:
    """The blocks for the user message and, when some reference failed, the one line for the person."""

    blocks: list[Block] = field(default_factory=list[Block])
    problems: list[str] = field(default_factory=list[str])

    @property
    def note(self) -> str | None:
        return f"not attached: {'; '.join(self.problems)}" if self.problems else None


class _Unattached(Exception):
    """Why one reference was not attached (a line for the person and the model)."""


def _block(reference: Reference, body: str, limit: int) -> Block:
    text = f'<reference to="{reference.text}">\n{cap_text(body, limit)}\n</reference>'
    return {"type": "text", "text": text}


def describe_named(name: str, namespace: dict[str, Any]) -> str:
    """The description of one variable; `_Unattached` when there is none to give."""
    if name not in namespace:
        near = difflib.get_close_matches(name, [n for n in namespace if not is_hidden(n, namespace[n])], n=3)
        hint = f" (similar: {', '.join(near)})" if near else ""
        raise _Unattached(f"@{name}: no variable '{name}' in the kernel{hint}")
    value = namespace[name]
    if name.startswith("__") or is_hidden(name, value):
        raise _Unattached(
            f"@{name}: ListVariables does not show private names, modules or IPython's own (ask for Inspect)"
        )
    deadline = Deadline(per_call=1.0, total=5.0)
    facts = describe_variable(name, value, deadline)
    parts = (("shape/len ", facts.shape), ("dtype ", facts.dtype), ("", facts.size), ("= ", facts.value))
    head = ", ".join([f"{name}: {type_path(value)}", *(label + fact for label, fact in parts if fact)])
    if names_credential(name):  # ListVariables' rule: its type and size, never what it holds
        return f"{head}\n{CREDENTIAL_HIDDEN}"
    return f"{head}\n{portray(value, deadline)}".rstrip()


def _cell(cells: Sequence[Cell], cell_id: str, notebook: str, reference: Reference) -> tuple[int, Cell]:
    for index, cell in enumerate(cells):
        if cell.id == cell_id:
            return index, cell
    raise _Unattached(f"{reference.text}: no cell with id '{cell_id}' in {notebook}")


def _outputs_of(cell: Cell, reference: Reference) -> list[Any]:
    outputs = list(cell.outputs)
    if not outputs:
        raise _Unattached(f"{reference.text}: cell '{cell.id}' has no outputs")
    if reference.output is None:
        return outputs
    if not 1 <= reference.output <= len(outputs):
        count = f"{len(outputs)} output{'s' if len(outputs) != 1 else ''}"
        raise _Unattached(f"{reference.text}: cell '{cell.id}' has {count} (they count from 1)")
    return [outputs[reference.output - 1]]


class _Resolver:
    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        limits = ctx.sandbox.limits
        self.images = ImageBudget(max_bytes=limits.max_image_bytes)
        self.text_chars = min(limits.max_output_chars // 2, REFERENCE_CHARS)
        self._cells: tuple[list[Cell], str] | None = None
        self._book: Notebook | None = None

    async def cells(self, reference: Reference) -> tuple[list[Cell], str]:
        """This kernel's notebook's cells (read once per request) and its name as shown."""
        if self._cells is None:
            try:
                book = await open_notebook(self.ctx, None)
                cells = await book.cells()
            except ToolError as exc:
                raise _Unattached(f"{reference.text}: {exc.message}") from None
            self._cells = (cells, shown(self.ctx, book))
            self._book = book
        return self._cells

    async def resolve(self, reference: Reference) -> list[Block]:
        if reference.kind == "variable":
            namespace = self.ctx.namespace
            if namespace is None:
                raise _Unattached(f"{reference.text}: the agent is not running in a kernel")
            body = await asyncio.to_thread(describe_named, reference.target, namespace)
            return [_block(reference, body, REFERENCE_CHARS)]
        cells, notebook = await self.cells(reference)
        index, cell = _cell(cells, reference.target, notebook, reference)
        before = len(self.images.images)
        if reference.kind == "cell":
            body = render_full(cell, index, text_chars=self.text_chars, images=self.images)
            if self._book is not None:
                self.ctx.reads.record(ledger_key(self._book, cell.id), cell.source)
        else:
            chosen = _outputs_of(cell, reference)
            body = f"output of cell '{cell.id}' ({notebook}):\n" + render_outputs(
                chosen, text_chars=self.text_chars, images=self.images
            )
        images = [image.to_block() for image in self.images.images[before:]]
        return [_block(reference, body, REFERENCE_CHARS), *images]


async def attach_references(request: str, ctx: ToolContext) -> Attached:
    """The attachments for the references in `request` (none: an empty `Attached`)."""
    references = find_references(request)
    attached = Attached()
    if len(references) > MAX_REFERENCES:
        references = references[:MAX_REFERENCES]
        attached.problems.append(f"only the first {MAX_REFERENCES} references are attached")
    resolver = _Resolver(ctx)
    used = 0
    for reference in references:
        try:
            blocks = await resolver.resolve(reference)
        except _Unattached as why:
            attached.problems.append(str(why))
            attached.blocks.append(_block(reference, f"not attached: {why}", REFERENCE_CHARS))
            continue
        used += sum(len(str(block.get("text", ""))) for block in blocks)
        if used > TOTAL_CHARS:
            attached.problems.append(
                f"{reference.text}: over the {TOTAL_CHARS}-character budget for references"
            )
            break
        attached.blocks.extend(blocks)
    return attached


def _image_data(block: Block) -> str | None:
    source = block.get("source") if block.get("type") == "image" else None
    data = source.get("data") if is_object(source) else None
    return data if isinstance(data, str) else None


def merged(references: Sequence[Block], others: Sequence[Block]) -> list[Block]:
    """The references' blocks, then the other attachments (the kernel note) without an image a reference
    already carries: a figure the user displayed and then pointed at is sent once."""
    carried = {data for data in map(_image_data, references) if data is not None}
    return [*references, *(block for block in others if _image_data(block) not in carried)]
