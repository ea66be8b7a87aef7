"""A notebook cell as both backends hand it to the tools, and the nbformat JSON helpers they share.

Sources travel as one string (the live model and the wire protocol use strings); on disk nbformat splits
them into lists of lines, which `split_for_disk` reproduces so a file the agent wrote diffs like one
JupyterLab saved.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

CellType = Literal["code", "markdown", "raw"]
CELL_TYPES: tuple[CellType, ...] = ("code", "markdown", "raw")
#: nbformat 4.5's rule for cell ids.
VALID_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

#: Besides `text/*`, the mime types nbformat stores as lists of lines (JSON payloads stay as they are).
_SPLIT_MIMES = frozenset({"application/javascript", "image/svg+xml"})


def joined(value: Any) -> str:
    """nbformat allows a string or a list of strings for multiline text; this is always the string."""
    if isinstance(value, list):
        return "".join(str(part) for part in cast(list[Any], value))
    return "" if value is None else str(value)


@dataclass(frozen=True, kw_only=True)
class Cell:
    """One cell as the agent sees it; `outputs` are nbformat output dicts (empty for markdown and raw)."""

    id: str
    cell_type: CellType
    source: str
    execution_count: int | None = None
    outputs: tuple[Mapping[str, Any], ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict[str, Any])

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Cell:
        """From nbformat cell JSON or a `get_cells` entry of the live protocol (same keys)."""
        kind = str(data.get("cell_type", "code"))
        outputs: list[Mapping[str, Any]] = data.get("outputs") or []
        count = data.get("execution_count")
        return cls(
            id=str(data.get("id", "")),
            cell_type=kind if kind in CELL_TYPES else "raw",
            source=joined(data.get("source", "")),
            execution_count=int(count) if isinstance(count, int) else None,
            outputs=tuple(outputs) if kind == "code" else (),
            metadata=dict(cast(Mapping[str, Any], data.get("metadata") or {})),
        )

    def to_json(self) -> dict[str, Any]:
        """nbformat v4.5 cell JSON (source as one string), what `render.py` and the `restore` op take."""
        data: dict[str, Any] = {
            "id": self.id,
            "cell_type": self.cell_type,
            "source": self.source,
            "metadata": dict(self.metadata),
        }
        if self.cell_type == "code":
            data["execution_count"] = self.execution_count
            data["outputs"] = [dict(out) for out in self.outputs]
        return data

    @property
    def first_line(self) -> str:
        return next((line.strip() for line in self.source.splitlines() if line.strip()), "")


def new_cell_id() -> str:
    """A fresh id in nbformat's style (8 hex digits: short enough for the model to copy without slips)."""
    return uuid.uuid4().hex[:8]


def new_cell_json(cell_type: CellType, source: str, *, cell_id: str | None = None) -> dict[str, Any]:
    """An empty cell of that type, as nbformat v4.5 JSON."""
    data: dict[str, Any] = {
        "id": cell_id or new_cell_id(),
        "cell_type": cell_type,
        "metadata": {},
        "source": source,
    }
    if cell_type == "code":
        data["execution_count"] = None
        data["outputs"] = []
    return data


def _split_text(value: Any) -> Any:
    return value.splitlines(True) if isinstance(value, str) else value


def _split_bundle(bundle: dict[str, Any]) -> None:
    for mime, value in bundle.items():
        if mime.startswith("text/") or mime in _SPLIT_MIMES:
            bundle[mime] = _split_text(value)


def split_for_disk(cell: dict[str, Any], *, outputs: bool = True) -> dict[str, Any]:
    """The cell with multiline strings split into lines, the way nbformat writes files (in place, returned).

    `outputs=False` leaves the outputs as they are: outputs read from a file keep that file's choice (Colab
    stores some as one string).
    """
    cell["source"] = _split_text(cell.get("source", ""))
    attachments = cast(dict[str, Any], cell.get("attachments") or {})
    if attachments:  # copied: a retyped cell shares them with the cell as read
        cell["attachments"] = attachments = {
            name: dict(cast(dict[str, Any], bundle)) if isinstance(bundle, dict) else bundle
            for name, bundle in attachments.items()
        }
    for attachment in attachments.values():
        if isinstance(attachment, dict):
            _split_bundle(cast(dict[str, Any], attachment))
    for output in cast(list[dict[str, Any]], (cell.get("outputs") if outputs else None) or []):
        kind = output.get("output_type")
        if kind in ("execute_result", "display_data") and isinstance(output.get("data"), dict):
            _split_bundle(output["data"])
        elif kind == "stream":
            output["text"] = _split_text(output.get("text", ""))
    return cell
