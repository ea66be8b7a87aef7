"""Untrusted text to safe HTML. Model text and tool output may carry `<script>`, `onerror=` or `javascript:`;
live outputs are trusted by JupyterLab, so nothing from them reaches the page unescaped."""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Any, Literal

import mistune

CODE_BLOCK_STYLE = (
    "background:var(--jp-layout-color2,#f3f3f3);padding:8px 10px;border-radius:4px;overflow-x:auto;"
    "margin:6px 0;font-family:var(--jp-code-font-family,monospace);font-size:12px;line-height:1.4;"
)


class _SafeRenderer(mistune.HTMLRenderer):
    """Raw HTML escaped (`escape=True`), harmful URL schemes dropped by mistune, and no remote images:
    an image URL the model writes would be fetched by the browser — a way to leak data — so it becomes a link."""

    def image(self, text: str, url: str, title: str | None = None) -> str:
        return self.link(f"image: {text or url}", url, title)

    def block_code(self, code: str, info: str | None = None) -> str:
        """A fenced block as a code block (mistune escapes `code`): shaded, padded, scrolling sideways."""
        return super().block_code(code, info).replace("<pre>", f'<pre style="{CODE_BLOCK_STYLE}">', 1)

    def link(self, text: str, url: str, title: str | None = None) -> str:
        anchor = super().link(text, url, title)
        return anchor.replace("<a ", '<a target="_blank" rel="noopener noreferrer nofollow" ', 1)


@lru_cache(maxsize=1)
def _markdown() -> Any:
    return mistune.create_markdown(
        escape=True, renderer=_SafeRenderer(escape=True), plugins=["strikethrough", "table", "url"]
    )


def render_markdown(text: str) -> str:
    """Markdown as safe HTML, as it is: what is shown renders it through `ui.gate.markdown_to_html`, which masks
    it first (emphasis or code spans could split a secret into pieces too short to recognise afterwards)."""
    return str(_markdown()(text))


#: The level the top headings of model text take in the output: the output sits under the notebook's own title,
#: and any heading before it in the page (h1 or deeper) may be followed by an h2 (WCAG: levels never skip).
TOP_HEADING_LEVEL = 2
_HEADING_TAG = re.compile(r"<(/?)h([1-6])([^>]*)>")


def level_headings(rendered: str, *, top: int = TOP_HEADING_LEVEL) -> str:
    """Rendered Markdown's headings renumbered so they start at `top` and never skip a level (`#` then `####`
    becomes h2 then h3), keeping their nesting. Only the renderer writes tags (raw HTML is escaped), so every
    `<hN>` is a heading it wrote."""
    stack: list[int] = []  # the model's levels of the headings this one is nested under, and its own
    shown: list[int] = []

    def renumber(match: re.Match[str]) -> str:
        closing, level = match.group(1), int(match.group(2))
        if closing:
            return f"</h{shown.pop() if shown else level}>"
        while stack and stack[-1] >= level:
            stack.pop()
        stack.append(level)
        shown.append(min(top + len(stack) - 1, 6))
        return f"<h{shown[-1]}{match.group(3)}>"

    return _HEADING_TAG.sub(renumber, rendered)


#: A screenful of answer: longer answers show this many lines, the rest behind "show all".
FOLD_LINES = 40


def fold_point(text: str) -> int | None:
    """Where a long answer folds: the first blank line after `FOLD_LINES` lines that is outside a code fence
    (so neither part is broken Markdown); None when it is short or has no such line. Found from the start, it
    stays put as the answer streams on."""
    fenced = False
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True)):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif number >= FOLD_LINES and not fenced and not line.strip() and text[offset + len(line) :].strip():
            return offset
        offset += len(line)
    return None


#: The theme's signal colours that text is drawn in (`legible`).
Signal = Literal["warn", "error", "success", "brand"]
_SIGNALS: dict[Signal, str] = {
    "warn": "var(--jp-warn-color0,#b26b00)",
    "error": "var(--jp-error-color0,#c62828)",
    "success": "var(--jp-success-color0,#2e7d32)",
    "brand": "var(--jp-brand-color1,#1976d2)",
}


def legible(signal: Signal) -> str:
    """A theme's signal colour (`--jp-warn-color0`…) as a text colour that stays legible on the theme's
    backgrounds (WCAG AA, 4.5:1): mixed with the theme's strongest text colour, black in a light theme and
    white in a dark one, so it darkens or lightens with the theme and keeps its hue. A viewer without color-mix
    (an old renderer of the saved notebook) drops the declaration and shows the text in its usual colour."""
    return f"color-mix(in srgb,{_SIGNALS[signal]} 60%,var(--jp-ui-font-color0,#000))"


#: Secondary text: the theme's main text colour a little toward its background. JupyterLab's own secondary
#: colours fall short of 4.5:1 on its grey panels (`--jp-ui-font-color2` 4.45:1, `--jp-ui-font-color3` 2.6:1).
MUTED = "color-mix(in srgb,var(--jp-ui-font-color1,#212121) 80%,var(--jp-layout-color0,#fff))"


#: Classes that keep MathJax (v3 and v2 names) from typesetting `$…$` in our own lines (costs, tables).
NO_MATH = "mathjax_ignore tex2jax_ignore"


def esc(text: object) -> str:
    """Escape for element content and quoted attribute values."""
    return html.escape(str(text), quote=True)


def pre(text: str, *, style: str = "") -> str:
    base = "margin:0;white-space:pre-wrap;word-break:break-word;font-family:var(--jp-code-font-family,monospace);font-size:12px;"
    return f'<pre style="{base}{style}">{esc(text)}</pre>'
