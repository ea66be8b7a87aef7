"""What the user sees in two places the quickstart showed wrong: the offline demo's bill, and code blocks."""

from __future__ import annotations

import pytest
from test_run_view import Recorder, finished

from jupyter_agent.agent.pricing import OFFLINE_DEMO_ENV
from jupyter_agent.ui.gate import markdown_to_html
from jupyter_agent.ui.view import RunView


def footer(monkeypatch: pytest.MonkeyPatch, base_url: str, demo_url: str | None) -> str:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", base_url)
    if demo_url is None:
        monkeypatch.delenv(OFFLINE_DEMO_ENV, raising=False)
    else:
        monkeypatch.setenv(OFFLINE_DEMO_ENV, demo_url)
    publisher = Recorder()
    RunView(publisher=publisher).handle(finished())
    return publisher.shown[-1][1]["text/plain"]


def test_the_offline_demo_footer_says_no_charge_instead_of_a_dollar_cost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = footer(monkeypatch, "http://127.0.0.1:5001", "http://127.0.0.1:5001")
    assert "offline demo · no charge" in text
    assert "$" not in text


def test_a_real_model_still_shows_its_cost_even_after_the_demo_ran(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "$0.0123" in footer(monkeypatch, "https://api.anthropic.com", None)
    # the demo ran earlier in this kernel, then the user pointed the client at a real endpoint
    text = footer(monkeypatch, "https://api.anthropic.com", "http://127.0.0.1:5001")
    assert "$0.0123" in text and "no charge" not in text


def test_a_fenced_code_block_gets_block_styling_and_stays_escaped() -> None:
    html = markdown_to_html("Fixed:\n\n```python\nfor month in range(1, 4):  # <b>x</b>\n```\n")
    pre = html[html.index("<pre") : html.index(">", html.index("<pre")) + 1]
    assert "background:" in pre and "padding:" in pre and "overflow-x:auto" in pre
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>" not in html


def test_a_fenced_code_block_keeps_its_language_and_its_code() -> None:
    html = markdown_to_html("```python\nx = 1\n```\n")
    assert html.endswith('<code class="language-python">x = 1\n</code></pre>\n')
    assert html.count("<pre") == 1


def test_inline_code_is_not_turned_into_a_block() -> None:
    assert "<pre" not in markdown_to_html("use `range(1, 4)` here")
