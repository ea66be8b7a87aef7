"""HTML to Markdown for the model: what a reader sees of the page, without scripts, styles or hidden parts."""

from __future__ import annotations

import re
from typing import Any

#: Elements whose content is never what a reader sees.
_DROPPED_TAGS = (
    "script",
    "style",
    "noscript",
    "template",
    "iframe",
    "svg",
    "canvas",
    "head",
    "object",
    "embed",
)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*){2,}")


def _is_hidden(tag: Any) -> bool:
    attrs: dict[str, Any] = tag.attrs or {}
    if "hidden" in attrs or str(attrs.get("aria-hidden", "")).lower() == "true":
        return True
    if tag.name == "input" and str(attrs.get("type", "")).lower() == "hidden":
        return True
    return bool(_HIDDEN_STYLE.search(str(attrs.get("style", ""))))


def page_title(soup: Any) -> str:
    title = soup.find("title")
    return " ".join(title.get_text().split()) if title is not None else ""


def html_to_markdown(html: str) -> tuple[str, str]:
    """(title, Markdown) of an HTML page; comments, scripts, styles and hidden elements are dropped."""
    from bs4 import BeautifulSoup, Comment
    from markdownify import markdownify

    soup = BeautifulSoup(html, "html.parser")
    title = page_title(soup)
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        comment.extract()
    for tag in soup.find_all(_DROPPED_TAGS):
        tag.decompose()
    for tag in [t for t in soup.find_all(True) if _is_hidden(t)]:
        if not tag.decomposed:
            tag.decompose()
    text = markdownify(str(soup), heading_style="ATX", bullets="-", strip=["img"])
    return title, _BLANK_LINES.sub("\n\n", text).strip()
