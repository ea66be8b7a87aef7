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


def stopped_line(cards: list[ToolCard]) -> str:
    """ "⏹ Stopped by you — 2 tool calls ran, 1 was stopped midway. …": what a stopped run's calls came to. A call
    stopped midway may have done part of its work (code that ran up to the Interrupt), so it is named apart."""
    ran = sum(card.status in ("done", "error") for card in cards)
    cut = sum(card.status == "interrupted" and card.duration is not None for card in cards)
    if not ran and not cut:
        return "⏹ Stopped by you before any tool call ran. Ask again to go on."
    calls = f"{ran} tool call{'s' if ran != 1 else ''} ran"
    midway = f", {cut} {'was' if cut == 1 else 'were'} stopped midway" if cut else ""
    return f"⏹ Stopped by you — {calls}{midway}. What ran is kept; ask again to go on."


def stopped_bundle(cards: list[ToolCard]) -> Bundle:
    """The one calm banner a run the user stopped (Interrupt or Stop) ends with, a status for screen readers."""
    line = stopped_line(cards)
    return {
        "text/plain": line,
        "text/html": '<div class="jp-agent-stopped" role="status" style="margin:6px 0 2px;padding:4px 8px;'
        "font-size:13px;border-left:3px solid var(--jp-border-color1,#9e9e9e);"
        f'background:var(--jp-layout-color2,#eee);color:var(--jp-ui-font-color1,#212121);">{esc(line)}</div>',
    }
