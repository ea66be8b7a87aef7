"""A notebook file's form, apart from its cells' content: what undo names when it cannot put the bytes back.

A NotebookEdit rewrites an old file's form (cell ids added, nbformat 4.5, v3 worksheets lifted); undoing the cell
operations brings the cells back but not that, and `%agent undo` says what stays. The journal keeps the form of
the file as the run found it as this small value (a few bytes a cell), not the file.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast


@dataclass(frozen=True, kw_only=True)
class NotebookShape:
    version: str
    worksheets: bool
    cells_key: bool
    with_ids: int
    #: Each distinct key order of a cell, and per cell the index of its order.
    orders: tuple[tuple[str, ...], ...]
    order_of: array[int]

    @classmethod
    def of(cls, nb: Mapping[str, Any]) -> NotebookShape:
        cells = _cells(nb)
        distinct: dict[tuple[str, ...], int] = {}
        order_of = array("I", (distinct.setdefault(tuple(c), len(distinct)) for c in cells))
        return cls(
            version=f"{nb.get('nbformat')}.{nb.get('nbformat_minor')}",
            worksheets="worksheets" in nb,
            cells_key="cells" in nb,
            with_ids=sum(1 for c in cells if "id" in c),
            orders=tuple(distinct),
            order_of=order_of,
        )

    @classmethod
    def of_bytes(cls, data: bytes) -> NotebookShape | None:
        try:
            value: object = json.loads(data)
        except (ValueError, UnicodeDecodeError):
            return None
        return cls.of(cast(dict[str, Any], value)) if isinstance(value, dict) else None

    def differences(self, now: NotebookShape) -> list[str]:
        """What of this form `now` does not have, in the words `%agent undo` uses."""
        found: list[str] = []
        if self.version != now.version:
            found.append(f"nbformat {self.version} → {now.version}")
        if self.worksheets and now.cells_key:
            found.append("its cells moved out of the v3 worksheets")
        with_ids = now.with_ids - self.with_ids
        if with_ids > 0:
            found.append(f"ids added to {with_ids} cell(s)")
        reordered = sum(
            1
            for mine, theirs in zip(self.order_of, now.order_of, strict=False)
            if self.orders[mine] != now.orders[theirs]
        )
        if reordered and not with_ids:
            found.append(f"the key order of {reordered} cell(s)")
        return found


def _cells(nb: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    cells = nb.get("cells")
    if not isinstance(cells, list):
        worksheets = nb.get("worksheets")
        first = cast(list[Any], worksheets)[0] if isinstance(worksheets, list) and worksheets else None
        cells = cast(Mapping[str, Any], first).get("cells") if isinstance(first, dict) else None
    if not isinstance(cells, list):
        return []
    return [cast(Mapping[str, Any], c) for c in cast(list[Any], cells) if isinstance(c, dict)]
