"""TodoWrite's list as one checklist in the run's output: done items struck through, the current one bold."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .html import MUTED, esc

_MARKS = {"completed": ("[x]", "☑"), "in_progress": ("[>]", "▶"), "pending": ("[ ]", "☐")}


def checklist_bundle(todos: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    done = sum(t.get("status") == "completed" for t in todos)
    head = f"Todos ({done}/{len(todos)} done)" if todos else "Todos (cleared)"
    lines: list[str] = []
    items: list[str] = []
    for todo in todos:
        status = str(todo.get("status", "pending"))
        text_mark, html_mark = _MARKS.get(status, _MARKS["pending"])
        label = str(todo.get("activeForm") if status == "in_progress" else todo.get("content", ""))
        lines.append(f"{text_mark} {label}")
        style = (
            f"text-decoration:line-through;color:{MUTED};"
            if status == "completed"
            else "font-weight:600;"
            if status == "in_progress"
            else ""
        )
        items.append(f'<li style="list-style:none;{style}">{html_mark} {esc(label)}</li>')
    html = (
        '<div class="jp-agent-todos" style="border:1px solid var(--jp-border-color2,#ddd);border-radius:4px;'
        'padding:3px 8px;margin:3px 0;font-size:12px;">'
        f'<div style="font-weight:600;">📋 {esc(head)}</div>'
        f'<ul style="margin:2px 0;padding-left:4px;">{"".join(items)}</ul></div>'
    )
    return {"text/plain": "\n".join([head, *lines]), "text/html": html}
