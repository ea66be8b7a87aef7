"""A long answer folds after a screenful with "show all"; a short one, and a code block, are never cut."""

from __future__ import annotations

from test_run_view import Recorder

from jupyter_agent.agent import events as ev
from jupyter_agent.ui.html import FOLD_LINES
from jupyter_agent.ui.view import RunView


def answer(text: str) -> str:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(ev.TextDelta(text=text))
    view.handle(ev.TextDone())
    return publisher.updates[-1][1]["text/html"]


def test_a_long_answer_shows_a_screenful_then_show_all() -> None:
    paragraphs = [f"Paragraph {n}." for n in range(FOLD_LINES)]
    html = answer("\n\n".join(paragraphs))
    head, _, tail = html.partition('<details class="jp-agent-more">')
    assert tail, html
    assert "Paragraph 0." in head and f"Paragraph {FOLD_LINES // 2 - 1}." in head
    assert f"Paragraph {FOLD_LINES - 1}." in tail and f"Paragraph {FOLD_LINES - 1}." not in head
    shown = head.count("Paragraph ")
    assert shown >= FOLD_LINES // 2  # a screenful: FOLD_LINES lines of the source, blank lines included
    hidden = "\n\n".join(paragraphs[shown:])
    assert f"show all ({len(hidden.splitlines())} more lines)" in tail
    assert html.count("Paragraph ") == FOLD_LINES  # every line once: folded, not cut


def test_a_short_answer_and_a_long_code_block_are_not_folded() -> None:
    assert "jp-agent-more" not in answer("One line.\n\nTwo lines.")
    code = "```python\n" + "\n\n".join(f"x{n} = {n}" for n in range(FOLD_LINES)) + "\n```"
    assert "jp-agent-more" not in answer(code)
