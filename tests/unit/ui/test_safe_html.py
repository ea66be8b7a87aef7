"""Untrusted model text and tool output never put script, event handlers or javascript: URLs on the page."""

from __future__ import annotations

import re

import pytest

from jupyter_agent.base.result import ToolResult
from jupyter_agent.ui.cards import ToolCard
from jupyter_agent.ui.diff_view import diff_to_html
from jupyter_agent.ui.gate import markdown_to_html

ATTACKS = [
    "<script>window.pwned = 1</script>",
    '<img src=x onerror="window.pwned=1">',
    "<svg onload=alert(1)>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "![x](javascript:alert(1))",
    '<a href="javascript:alert(1)">x</a>',
    '<iframe src="https://evil.example"></iframe>',
    "```html\n<script>alert(1)</script>\n```",
    "`<img src=x onerror=alert(1)>`",
    "<details open ontoggle=alert(1)>",
    "<style>body{display:none}</style>",
]

_TAG = re.compile(r"<\s*(script|img|svg|iframe|style|details)\b", re.IGNORECASE)
_HANDLER = re.compile(r"<[^>]*\son\w+\s*=", re.IGNORECASE)


def assert_inert(html: str) -> None:
    assert not _TAG.search(html.replace('<details class="jp-agent-card"', "")), html
    assert not _HANDLER.search(html), html
    assert 'href="javascript' not in html.lower()
    assert 'src="javascript' not in html.lower()


@pytest.mark.parametrize("attack", ATTACKS)
def test_model_markdown_is_inert(attack: str) -> None:
    assert_inert(markdown_to_html(f"Here you go:\n\n{attack}\n"))


@pytest.mark.parametrize("attack", ATTACKS)
def test_tool_output_in_a_card_is_inert(attack: str) -> None:
    card = ToolCard(call_id="t", name="Read", input={"file_path": attack}, kind="read", status="done")
    card.result = ToolResult.ok(attack, summary=attack)
    html = card.html()
    assert html.startswith('<details class="jp-agent-card"')
    assert_inert(html.removeprefix('<details class="jp-agent-card"'))


@pytest.mark.parametrize("attack", ATTACKS)
def test_diffs_are_inert(attack: str) -> None:
    assert_inert(diff_to_html(f"--- a\n+++ b\n@@ -1 +1 @@\n-{attack}\n+safe\n"))


def test_remote_images_become_links_so_the_browser_fetches_nothing() -> None:
    html = markdown_to_html("![chart](https://example.com/leak?data=secret)")
    assert "<img" not in html
    assert 'href="https://example.com/leak?data=secret"' in html
    assert "image: chart" in html


def test_ordinary_markdown_still_renders() -> None:
    html = markdown_to_html(
        "**bold** and `code` and a [link](https://jupyter.org)\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    )
    assert "<strong>bold</strong>" in html and "<code>code</code>" in html and "<table>" in html
    assert 'rel="noopener noreferrer nofollow"' in html


def test_links_open_in_a_new_tab_without_referrer_and_keep_their_title() -> None:
    assert markdown_to_html('[link](https://jupyter.org "Jupyter")') == (
        '<p><a target="_blank" rel="noopener noreferrer nofollow" href="https://jupyter.org" title="Jupyter">'
        "link</a></p>\n"
    )


def test_an_image_becomes_a_link_that_keeps_its_title() -> None:
    assert markdown_to_html('![chart](https://e.example/c.png "Sales")') == (
        '<p><a target="_blank" rel="noopener noreferrer nofollow" href="https://e.example/c.png" title="Sales">'
        "image: chart</a></p>\n"
    )
