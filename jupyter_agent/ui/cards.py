"""A compact card per tool call: icon by kind, one line, status, duration; details collapsed, errors open."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..base.result import ToolResult
from ..masking import clip, keep_tail, shorten
from .diff_view import diff_counts, diff_to_html
from .html import MUTED, esc, legible, pre

if TYPE_CHECKING:
    from ..tools.core import ToolKind

Status = Literal["writing", "pending", "asking", "running", "done", "error", "denied", "interrupted"]

ICONS: dict[ToolKind, str] = {"read": "🔍", "edit": "✏️", "delete": "🗑️", "execute": "▶️", "other": "🔧"}
_STATUS_TEXT: dict[Status, str] = {
    "writing": "writing…",
    "pending": "…",
    "asking": "waiting for approval",
    "running": "running",
    "done": "done",
    "error": "error",
    "denied": "denied",
    "interrupted": "interrupted",
}
_STATUS_COLOR: dict[Status, str] = {
    "writing": MUTED,
    "pending": MUTED,
    "asking": legible("warn"),
    "running": legible("brand"),
    "done": legible("success"),
    "error": legible("error"),
    "denied": "var(--jp-ui-font-color1,#555)",  # a no (the person's, or a rule's) is an answer, not an error
    "interrupted": legible("warn"),
}
_MAX_DETAIL_CHARS = 8_000
#: The reason under a refused or failed call's line in text/plain.
_MAX_WHY_CHARS = 600


@dataclass(kw_only=True)
class ToolCard:
    """The state of one call as the UI knows it; `html()` / `text()` render it."""

    call_id: str
    name: str
    input: Any
    kind: ToolKind = "other"
    title: str = ""
    status: Status = "pending"
    duration: float | None = None
    result: ToolResult | None = None
    collapsed: bool = False
    extra: dict[str, Any] = field(default_factory=dict[str, Any])
    #: What a running call last said of its progress ("40/100 indexing"), shown beside "running".
    progress: str = ""
    #: A Task card's sub-agent calls, shown collapsed inside it.
    children: list[ToolCard] = field(default_factory=list["ToolCard"])
    #: While the model writes the call: the complete lines so far of its streamed field (a growing code view).
    writing: str | None = None
    #: The call in words as its approval asked it ("Edit cell 3 ('# clean') of a.ipynb"), until its result
    #: names it.
    asked: str = ""

    def headline(self) -> str:
        """`Edit utils.py  +3 −1`, `Grep "TODO" 12 files`: the title, or the tool's own summary when it says more."""
        line = self.asked or self.title or self.name
        if self.result is None:
            return line
        summary = self.result.summary
        if self.result.diff:
            added, removed = diff_counts(self.result.diff)
            if summary and not self.result.is_error and f"+{added}" in summary:
                return summary  # `Edited cell 3 ('# clean') of a.ipynb (+1 −1)`: it says its counts
            return f"{summary if summary and not self.result.is_error else line}  +{added} −{removed}"
        if not summary or self.result.is_error:
            return line
        subject = line.removeprefix(self.name).strip()
        return summary if subject and subject in summary else f"{line} · {summary}"

    def status_text(self) -> str:
        """A failed call shows its error code (`FILE_NOT_FOUND`, `DENIED`), which says more than "error"."""
        code = self.result.error_code if self.result is not None else None
        if code and self.status in ("error", "denied"):
            return code
        if self.status == "running" and self.progress:
            return f"running · {self.progress}"
        if self.status == "writing" and self.writing:
            lines = self.writing.count("\n")
            return f"writing… {lines} line{'s' if lines != 1 else ''}"
        return _STATUS_TEXT[self.status]

    def text(self) -> str:
        """One line; a refused or failed call also says why on the next (text/plain is all that nbconvert's
        text exports, a terminal and a notebook viewed as JSON show)."""
        took = f" {self.duration:.1f}s" if self.duration is not None else ""
        line = f"{ICONS.get(self.kind, '🔧')} {self.headline()}  [{self.status_text()}{took}]"
        why = self._why_text()
        return "\n".join([line, *why, *(f"    {child.text()}" for child in self.children)])

    def _why_text(self) -> list[str]:
        result = self.result
        if result is None or not result.is_error or self.status not in ("error", "denied"):
            return []
        # The first paragraph: a report's verdict (VerifyNotebook's cell table and traceback follow a blank line)
        reason = " ".join(result.content.strip().split("\n\n", 1)[0].split())
        if result.error_code and reason.startswith(f"{result.error_code}: "):
            reason = reason[len(result.error_code) + 2 :]  # the status shows the code already
        return [f"    {shorten(reason, _MAX_WHY_CHARS)}"]

    def html(self) -> str:
        took = f" · {self.duration:.1f}s" if self.duration is not None else ""
        status = (
            f'<span style="color:{_STATUS_COLOR[self.status]};font-size:11px;margin-left:8px;">'
            f"{esc(self.status_text())}{took}</span>"
        )
        # a refusal stays closed and calm, and says why in its headline (why it could not run is not a detail)
        why = "".join(
            f'<div class="jp-agent-card-why" style="font-size:11px;">{esc(line.strip())}</div>'
            for line in (self._why_text() if self.status == "denied" else [])
        )
        summary = (
            f'<summary style="cursor:pointer;list-style-position:inside;">'
            f"{ICONS.get(self.kind, '🔧')} <code>{esc(self.headline())}</code>{status}{why}</summary>"
        )
        is_error = self.result is not None and self.result.is_error and self.status != "denied"
        growing = self.status == "writing" and bool(self.writing)
        opened = " open" if (is_error or growing) and not self.collapsed else ""
        border = "var(--jp-error-color1,#e57373)" if is_error else "var(--jp-border-color2,#ddd)"
        return (
            f'<details class="jp-agent-card" data-status="{esc(self.status)}"{opened} '
            f'style="border:1px solid {border};border-radius:4px;padding:3px 8px;margin:3px 0;">'
            f"{summary}{self._details()}</details>"
        )

    def _children_html(self) -> str:
        """The sub-agent's calls, one line each, folded under the Task's headline."""
        lines = "".join(f'<div style="font-size:11px;">{esc(child.text())}</div>' for child in self.children)
        count = len(self.children)
        return (
            f'<details class="jp-agent-subcalls" style="margin:2px 0;"><summary style="font-size:11px;'
            f'cursor:pointer;">{count} sub-agent call{"s" if count != 1 else ""}</summary>{lines}</details>'
        )

    def _details(self) -> str:
        parts: list[str] = [self._children_html()] if self.children else []
        if self.status == "writing":
            return (
                _section("being written", pre(keep_tail(self.writing, _MAX_DETAIL_CHARS)))
                if self.writing
                else ""
            )
        try:
            args = json.dumps(self.input, indent=2, ensure_ascii=False)
        except (TypeError, ValueError):
            args = repr(self.input)
        parts.append(_section("arguments", pre(_cap(args))))  # clip masks before it cuts
        if self.result is not None:
            if self.result.diff:
                parts.append(_section("diff", diff_to_html(self.result.diff)))
            parts.append(_section("result", pre(_cap(self.result.content))))
            if self.result.images:
                parts.append(f"<div>{len(self.result.images)} image(s) sent to the model</div>")
        return '<div style="margin:4px 0 2px 0;">' + "".join(parts) + "</div>"


def _section(label: str, body: str) -> str:
    return f'<div style="font-size:11px;color:{MUTED};margin-top:4px;">{esc(label)}</div>{body}'


def _cap(text: str) -> str:
    return clip(
        text, _MAX_DETAIL_CHARS, marker=f"\n… [{max(len(text) - _MAX_DETAIL_CHARS, 0)} more characters]"
    )
