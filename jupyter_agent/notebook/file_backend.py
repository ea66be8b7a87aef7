"""The file backend: a notebook that is not open in JupyterLab, edited on disk with nbformat's rules.

A file is parsed once per change (`file_cache.py`: by path, checked by its stamp, and by a digest of its bytes
when the stamp alone could miss a change), so reading or replacing one cell of a 24 MB notebook costs close to
what it costs in a small one. A batch applies its ops to a copy of the parsed cell list (a changed cell is a new
dict), validates only what changed against nbformat's schema, and writes the file atomically: the bytes of
every untouched cell as they are, the changed ones in the layout the file was read in (`layout.py`: indent, key
order, line ends, final newline, byte order mark; sources as lists of lines), so the diff in git is only the
change (`file_splice.py`). A file whose read changed its top level (an upgrade, ids added to a file older than
nbformat 4.5) is written whole the first time.

Cells of files older than nbformat 4.5 have no ids. They get `cell-<index>` rather than random ids (also
when nbformat upgrades a v2/v3 file, which invents random ones), so the ids the model read stay valid
until the first write stores them. Read shows a notebook file through `parse_notebook` too, so both tools
give a cell the same id — duplicate and invalid ids included.

Only the changed cells (and the notebook's top level) are validated: a full validation costs ~70 ms per
1,000 cells, and cells the agent did not touch are written back exactly as they were read.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

from ..base.errors import ToolError
from ..base.journal import NotebookWrite, journal_notebook_write
from ..base.notebook_shape import NotebookShape
from ..base.sandbox import atomic_write
from .apply import Applied, CellJson, apply_ops
from .base import Notebook
from .cells import VALID_ID, split_for_disk
from .file_cache import FILES, ParsedFile, Stamp, digest_of
from .file_splice import scan, splice
from .layout import Layout, detect_layout, order_like
from .ops import GetCells, Op, OpResult

_FILE_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jupyter-agent-notebook-files")
_DIGESTS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jupyter-agent-notebook-digests")
_locks: dict[Path, threading.Lock] = {}
_locks_guard = threading.Lock()


def _lock_for(path: Path) -> threading.Lock:
    """One lock per file, so concurrent calls in this kernel never interleave a read-modify-write."""
    with _locks_guard:
        return _locks.setdefault(path, threading.Lock())


def ensure_ids(cells: list[CellJson]) -> set[int]:
    """Give every cell a valid, unique id (`cell-<index>` for missing ones); the indexes of the cells changed."""
    taken: set[str] = set()
    changed: set[int] = set()
    for index, cell in enumerate(cells):
        value = cell.get("id")
        if isinstance(value, str) and VALID_ID.match(value) and value not in taken:
            taken.add(value)
            continue
        changed.add(index)
        candidate, n = f"cell-{index}", 1
        while candidate in taken:
            candidate, n = f"cell-{index}-{n}", n + 1
        if value is None:  # a new key goes first, so the diff is one added line (no comma moves)
            rest = [(k, v) for k, v in cell.items()]
            cell.clear()
            cell["id"] = candidate
            cell.update(rest)
        else:
            cell["id"] = candidate
        taken.add(candidate)
    return changed


def parse_notebook(data: bytes, name: str) -> dict[str, Any]:
    """The notebook as nbformat 4 JSON (older formats upgraded), ids filled in; `INVALID_ARGS` if not a notebook."""
    return load_notebook(data, name)[0]


def load_notebook(data: bytes, name: str) -> tuple[dict[str, Any], Layout]:
    """`parse_notebook`, and the layout of the file to write it back in."""
    parsed = load_parsed(data, name)
    return parsed.nb, parsed.layout


def load_parsed(data: bytes, name: str) -> ParsedFile:
    """The notebook in `data` as the file backend keeps it: parsed, ids filled in, each cell's span in the bytes,
    its layout and form; `INVALID_ARGS` if it is not a notebook."""
    scanned = scan(data)
    if scanned is not None:
        nb, spans = scanned.nb, scanned.spans
    else:
        try:
            value: Any = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ToolError(
                "INVALID_ARGS", f"{name} is not valid notebook JSON ({exc}); open it with Read"
            ) from None
        if not isinstance(value, dict):
            raise ToolError("INVALID_ARGS", f"{name} is not a Jupyter notebook (no 'cells' list)")
        nb, spans = cast(dict[str, Any], value), []
    if "cells" not in nb and "worksheets" not in nb:
        raise ToolError("INVALID_ARGS", f"{name} is not a Jupyter notebook (no 'cells' list)")
    layout = detect_layout(data, nb)
    shape = NotebookShape.of(nb)
    whole = nb.get("nbformat") != 4 or not spans
    if nb.get("nbformat") != 4:
        nb = _upgraded(data, name)
    if not isinstance(nb.get("cells"), list):
        raise ToolError("INVALID_ARGS", f"{name} is not a Jupyter notebook (no 'cells' list)")
    cells = cast(list[CellJson], nb["cells"])
    for index in ensure_ids(cells):
        if not whole:
            spans[index] = None  # its JSON is not its bytes any more
    minor = max(int(nb.get("nbformat_minor", 0)), 5)  # cell ids came with nbformat 4.5
    whole = whole or nb.get("nbformat_minor") != minor
    nb["nbformat_minor"] = minor
    return ParsedFile(
        nb=nb,
        layout=layout,
        spans=[] if whole else spans,
        whole=whole,
        digest=digest_of(data),
        shape=shape,
    )


def _upgraded(data: bytes, name: str) -> dict[str, Any]:
    """A v2/v3 notebook as v4 JSON, without the random ids nbformat's upgrade invents (see the module docstring)."""
    import nbformat  # slow to import; old formats are rare

    # nbformat's reads/writes carry no annotations: the NotebookNode goes straight back to JSON text.
    try:
        upgraded: object = nbformat.reads(data.decode("utf-8-sig"), as_version=4)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    except Exception as exc:
        raise ToolError("INVALID_ARGS", f"{name} is not a notebook nbformat can read ({exc})") from None
    text: str = nbformat.writes(upgraded)  # pyright: ignore[reportUnknownMemberType]
    nb: dict[str, Any] = json.loads(text)
    for cell in cast(list[CellJson], nb.get("cells") or []):
        cell.pop("id", None)
    return nb


def serialize(nb: dict[str, Any], layout: Layout | None = None) -> bytes:
    """The file's bytes in `layout`; by default laid out as `nbformat.write` lays them out."""
    return (layout or Layout()).dump(nb)


def _schema_problem(nb: dict[str, Any]) -> str | None:
    import nbformat
    from nbformat import ValidationError

    try:
        nbformat.validate(nb)
    except ValidationError as exc:
        return exc.message
    return None


def validate_changes(nb: dict[str, Any], changed: frozenset[str]) -> str | None:
    """nbformat's schema check on the top level and the changed cells; the problem, or None when valid.

    A file whose own metadata was already invalid is not the agent's doing: then only its cells are judged.
    """
    cells = cast(list[CellJson], nb["cells"])
    ids = [c.get("id") for c in cells]
    if len(set(ids)) != len(ids):
        return "two cells would share an id"
    touched = [c for c in cells if c.get("id") in changed]
    problem = _schema_problem({**nb, "cells": touched})
    if problem is not None and _schema_problem({**nb, "cells": []}) is not None:
        bare: dict[str, Any] = {
            "cells": touched,
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": nb["nbformat_minor"],  # load_notebook always sets it
        }
        return _schema_problem(bare)
    return problem


class FileNotebook(Notebook):
    """A notebook file that no editor has open; see the module docstring."""

    live = False

    async def apply(self, ops: Sequence[Op]) -> list[OpResult]:
        """On the one thread notebook files are handled on: a file's bytes are large, and each thread the
        allocator serves keeps what it freed (a pool of threads kept a copy of a 24 MB notebook each)."""
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()  # the run's journal goes with the call, as `to_thread` does it

        def in_the_runs_context() -> list[OpResult]:
            return context.run(self.apply_sync, ops)

        return await loop.run_in_executor(_FILE_THREAD, in_the_runs_context)

    def apply_sync(self, ops: Sequence[Op]) -> list[OpResult]:
        with _lock_for(self.path):
            parsed, data = self._load()
            if all(isinstance(op, GetCells) for op in ops):
                return [OpResult(ok=True, cells=parsed.cells()) for _ in ops]  # the parse's own cells
            cells = list(parsed.cell_list)
            # Held (not copied) so that an op replacing a cell's outputs is told apart by identity.
            read_outputs = {c.get("id"): c.get("outputs") for c in cells}
            applied = apply_ops(cells, ops, name=self.name)
            if not applied.modified:
                return applied.results
            nb = {**parsed.nb, "cells": cells}
            problem = validate_changes(nb, applied.changed)
            if problem is not None:
                return _refused(applied, f"the change would make {self.name} an invalid notebook: {problem}")
            kept = [cell for cell in cells if cell.get("id") not in applied.changed]
            for cell in cells:
                if cell.get("id") in applied.changed:
                    new_outputs = cell.get("outputs") is not read_outputs.get(cell.get("id"))
                    split_for_disk(cell, outputs=new_outputs)
                    if not parsed.layout.sort_keys:
                        _order_like_neighbours(cell, kept)
            self._write(parsed, data, nb)
            return applied.results

    def _load(self) -> tuple[ParsedFile, bytes | None]:
        try:
            return FILES.load(self.path, lambda data: load_parsed(data, self.name))
        except FileNotFoundError:
            raise ToolError(
                "NOTEBOOK_NOT_FOUND",
                f"'{self.path}' does not exist; check the path (Glob '**/*.ipynb' lists notebooks)",
            ) from None
        except IsADirectoryError:
            raise ToolError("NOTEBOOK_NOT_FOUND", f"'{self.path}' is a directory, not a notebook") from None

    def _write(self, parsed: ParsedFile, data: bytes | None, nb: dict[str, Any]) -> None:
        """Write `nb` (the parse with its new cell list): spliced into the file's bytes where it can be."""
        if data is None:
            data = self._bytes_of(parsed)
        cells = cast(list[CellJson], nb["cells"])
        spliced = None if parsed.whole else splice(data, parsed.spans, parsed.cell_list, cells, parsed.layout)
        written = spliced.data if spliced is not None else serialize(nb, parsed.layout)
        digest = _DIGESTS.submit(digest_of, written)  # hashed while the file is written and synced
        atomic_write(self.path, written)
        spans = spliced.spans if spliced is not None else []
        after = ParsedFile(nb=nb, layout=parsed.layout, spans=spans, whole=not spans, digest=digest.result())
        # Checked against the file on its next read: another write between the rename and this stat must show.
        FILES.keep(self.path, after, Stamp.of(os.stat(self.path)), 0, written)
        if spliced is None:
            write = NotebookWrite.of(data, written, parsed.shape)
        else:
            write = NotebookWrite(
                before=data,
                after=written,
                before_digest=parsed.digest,
                after_digest=after.digest,
                head=spliced.head,
                tail=spliced.tail,
                shape=parsed.shape,
            )
        journal_notebook_write(self.path, write)

    def _bytes_of(self, parsed: ParsedFile) -> bytes:
        """The file's bytes, which must be those `parsed` came from (the stamp said so: kept in memory for the
        notebook in use, else read, and a change since the stamp was taken is caught here — the batch is refused
        rather than spliced into bytes it does not describe)."""
        if parsed.data is not None and not parsed.racy():
            return parsed.data
        data = self.path.read_bytes()
        if not parsed.holds(data, Stamp.of(os.stat(self.path))):
            FILES.forget(self.path)
            raise ToolError(
                "STALE_READ",
                f"{self.name} changed on disk while the edit was being made; nothing was written — read it again",
            )
        return data


def _order_like_neighbours(cell: CellJson, kept: list[CellJson]) -> None:
    """A new or changed cell takes the key order of an untouched cell of its type (or any untouched cell)."""
    template = next(
        (c for c in kept if c.get("cell_type") == cell.get("cell_type")), kept[0] if kept else None
    )
    if template is not None:
        order_like(cell, template)


def _refused(applied: Applied, message: str) -> list[OpResult]:
    """Nothing was written: every op that changed something reports the schema problem instead."""
    return [
        OpResult.failed("INVALID_OP", message) if result.ok and result.id is not None else result
        for result in applied.results
    ]
