"""What a notebook tool could not put into the notebook, shown under its card instead.

- A proposal (NotebookEdit where a frontend holds the notebook): what would change, the diff, and the new
  source ready to copy; a new code cell is also offered through IPython's `set_next_input` payload, which VS
  Code and JupyterLab turn into a cell below this one when the cell finishes.
- A cell's outputs (RunCell where the notebook cannot take them): the text and images it produced.

Sources and outputs come from the notebook and the user's code: everything is escaped, images are only the
raster types, checked to be base64.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any

from ..base.json_values import is_array, is_object
from ..notebook.cells import joined
from .diff_view import diff_to_html
from .html import MUTED, esc, legible, pre
from .jupyter_api import offer_next_input
from .publish import Bundle

_BOX = "border:1px dashed var(--jp-brand-color1,#1976d2);border-radius:4px;padding:4px 8px;margin:4px 0;"
_SMALL = f"font-size:11px;color:{MUTED};"
_IMAGES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def _headline(proposal: Mapping[str, Any]) -> str:
    notebook, cell = proposal.get("notebook", ""), proposal.get("cell_id")
    mode = proposal.get("mode")
    if mode == "delete":
        return f"Proposed: delete cell '{cell}' of {notebook} — not applied"
    if mode == "insert":
        return f"Proposed: a new {proposal.get('cell_type', 'code')} cell in {notebook} — not applied"
    if mode == "move":
        after = proposal.get("after_id")
        where = f"after cell '{after}'" if after else "to the top"
        return f"Proposed: move cell '{cell}' of {notebook} {where} — not applied"
    if _clear_only(proposal):
        return f"Proposed: clear the outputs of cell '{cell}' of {notebook} — not applied"
    also = " and clear its outputs" if proposal.get("clear_outputs") else ""
    return f"Proposed: a new source for cell '{cell}' of {notebook}{also} — not applied"


def _clear_only(proposal: Mapping[str, Any]) -> bool:
    return bool(proposal.get("clear_outputs")) and proposal.get("new_source") == proposal.get("old_source")


def _how(proposal: Mapping[str, Any]) -> str:
    mode = proposal.get("mode")
    if mode == "delete":
        return "Delete the cell yourself if you agree."
    if mode == "move":
        return "Move the cell yourself if you agree (drag it, or select it and use Move Up / Move Down)."
    if _clear_only(proposal):
        return "Clear its outputs yourself if you agree (right-click the cell: Clear Cell Output)."
    if mode == "insert" and proposal.get("next_input"):
        return "It appears as a new cell below this one when this cell finishes (delete it if you do not want it)."
    if mode == "insert":
        after = proposal.get("after_id")
        return f"Copy it into a new cell{f' after cell {after!r}' if after else ''} if you agree."
    return "Copy it into the cell if you agree."


def proposal_bundle(proposal: Mapping[str, Any], diff: str | None) -> Bundle:
    """The proposal as text and safe HTML."""
    head, how, reason = _headline(proposal), _how(proposal), str(proposal.get("reason", ""))
    source = str(proposal.get("new_source", ""))
    show_source = proposal.get("mode") not in ("delete", "move") and not _clear_only(proposal)
    text = [head, f"Why: {reason}" if reason else "", how]
    if diff:
        text.append(diff.rstrip("\n"))
    if show_source:
        text += ["New source (ready to copy):", source]
    html = [
        f'<div class="jp-agent-proposal" style="{_BOX}">',
        f"<div style='font-weight:600;'>{esc(head)}</div>",
        f"<div style='{_SMALL}'>{esc(reason)}</div>" if reason else "",
        f"<div>{esc(how)}</div>",
        diff_to_html(diff) if diff else "",
    ]
    if show_source:
        html += [
            f"<div style='{_SMALL}margin-top:4px;'>New source (ready to copy):</div>",
            pre(source, style="padding:4px;background:var(--jp-layout-color2,#f5f5f5);border-radius:3px;"),
        ]
    html.append("</div>")
    return {"text/plain": "\n".join(line for line in text if line), "text/html": "".join(html)}


def offer(proposal: Mapping[str, Any]) -> None:
    """The run's one new cell, as IPython's `set_next_input` payload (the tool decided it may take it)."""
    if proposal.get("mode") == "insert" and proposal.get("next_input"):
        offer_next_input(str(proposal.get("new_source", "")))


def _image(mime: str, value: Any) -> str | None:
    data = joined(value).replace("\n", "") if isinstance(value, (str, list)) else ""
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    return f'<img src="data:{mime};base64,{data}" style="max-width:100%;">' if data else None


def _output_parts(output: Mapping[str, Any]) -> tuple[str, str]:
    """One output as (text, html)."""
    kind = output.get("output_type")
    if kind == "stream":
        text = joined(output.get("text", ""))
        return text, pre(text)
    if kind == "error":
        lines = output.get("traceback")
        text = "\n".join(str(line) for line in lines) if is_array(lines) else ""
        text = text or str(output.get("ename", ""))
        return text, pre(text, style=f"color:{legible('error')};")
    data = output.get("data")
    bundle: Mapping[str, Any] = data if is_object(data) else {}
    text = joined(bundle.get("text/plain", ""))
    image = next((_image(m, bundle[m]) for m in _IMAGES if m in bundle), None)
    return text, image or pre(text)


def outputs_bundle(cell_id: str, outputs: Sequence[Mapping[str, Any]], why: str) -> Bundle:
    """A cell's outputs shown here because its notebook could not take them."""
    head = (
        f"Outputs of cell '{cell_id}' (not in the notebook: {why})" if why else f"Outputs of cell '{cell_id}'"
    )
    parts = [_output_parts(output) for output in outputs]
    text = "\n".join([head, *(t for t, _ in parts if t)])
    html = f'<div class="jp-agent-cell-outputs" style="{_BOX}"><div style="{_SMALL}">{esc(head)}</div>'
    return {"text/plain": text, "text/html": html + "".join(h for _, h in parts) + "</div>"}
