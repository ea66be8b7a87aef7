"""Small reports (`%agent status`, `tools`, `history`) as an HTML table with a text/plain twin.

The HTML fits the cell: labels (the leading columns: `model`, `saved to`, a tool's name) stay on one line, and
long values (a sessions path, a tool's description) wrap, anywhere if they must, instead of pushing the labels
into breaking mid-word or running past the cell edge. text/plain stays for terminals, nbconvert and anything that
reads outputs as text. Every value is escaped: rule patterns, tool descriptions and requests are user or model
text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .html import NO_MATH, esc

_STYLE = (
    "border-collapse:collapse;font-size:var(--jp-ui-font-size1,12px);margin:2px 0;"
    "max-width:100%;table-layout:auto"
)
_CELL = "text-align:left;vertical-align:top;padding:2px 10px 2px 0;"
_LABEL = _CELL + "white-space:nowrap"
_VALUE = _CELL + "white-space:pre-wrap;overflow-wrap:anywhere"


@dataclass(frozen=True, kw_only=True)
class Report:
    """One output: `text` for text/plain, `html` for text/html."""

    text: str
    html: str

    def bundle(self) -> dict[str, str]:
        return {"text/plain": self.text, "text/html": self.html}


def html_table(
    rows: Sequence[Sequence[str]], *, headers: Sequence[str] = (), note: str = "", label_columns: int = 1
) -> str:
    """An escaped HTML table; the first `label_columns` columns are labels that never wrap, the others wrap.
    `note` is a line under it (also escaped)."""
    head = ""
    if headers:
        head = (
            "<thead><tr>" + "".join(f'<th style="{_LABEL}">{esc(h)}</th>' for h in headers) + "</tr></thead>"
        )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td style="{_LABEL if column < label_columns else _VALUE}">{esc(cell)}</td>'
            for column, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    under = f'<div style="opacity:0.8">{esc(note)}</div>' if note else ""
    return (
        f'<table class="jp-agent-table {NO_MATH}" style="{_STYLE}">{head}<tbody>{body}</tbody></table>{under}'
    )
