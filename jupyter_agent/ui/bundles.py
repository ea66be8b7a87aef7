"""The MIME bundles a run's output shows (text/plain beside text/html): the answer, a thought, a card, an error."""

from __future__ import annotations

from .cards import ToolCard
from .gate import folded_markdown_html
from .html import esc, legible, pre
from .publish import Bundle


def thinking_bundle(text: str) -> Bundle:
    words = len(text.split())
    return {
        "text/plain": f"💭 thinking ({words:,} words)",
        "text/html": (
            '<details class="jp-agent-thinking" style="opacity:0.6;font-size:12px;margin:3px 0;">'
            f'<summary style="cursor:pointer;">💭 Thinking ({words:,} words)</summary>'
            f'<div style="white-space:pre-wrap;font-style:italic;">{esc(text)}</div></details>'
        ),
    }


def answer_bundle(text: str) -> Bundle:
    return {"text/plain": text, "text/html": f'<div class="jp-agent-text">{folded_markdown_html(text)}</div>'}


def card_bundle(card: ToolCard) -> Bundle:
    return {"text/plain": card.text(), "text/html": card.html()}


def error_bundle(message: str) -> Bundle:
    return {"text/plain": message, "text/html": pre(message, style=f"color:{legible('error')};")}
