"""The answer's headings never skip a level inside the output (WCAG, axe's heading-order): the model's `#` and
`####` become h2 and h3, nesting kept, across the fold of a long answer too; a heading in a code block is text."""

from __future__ import annotations

import re

from test_long_answer_folds import answer

from jupyter_agent.ui.html import FOLD_LINES


def levels(html: str) -> list[int]:
    return [int(level) for level in re.findall(r"<h([1-6])[\s>]", html)]


def test_headings_start_at_h2_and_never_skip_a_level() -> None:
    html = answer("# Summary\n\ntext\n\n#### Details\n\nmore\n\n## Next\n\n### Deeper\n\n# Again\n")
    assert levels(html) == [2, 3, 3, 4, 2]
    assert "<h2>Summary</h2>" in html and "<h3>Details</h3>" in html and "<h4>Deeper</h4>" in html


def test_a_deep_first_heading_is_the_top_one() -> None:
    assert levels(answer("### Only\n\ntext\n\n###### Under it\n")) == [2, 3]


def test_the_outline_goes_on_across_the_fold() -> None:
    filler = "\n\n".join(f"Paragraph {n}." for n in range(FOLD_LINES))
    html = answer(f"# Top\n\n{filler}\n\n### Below the fold\n\ntext")
    assert '<details class="jp-agent-more">' in html
    assert levels(html) == [2, 3]


def test_a_heading_tag_in_code_or_raw_html_is_text() -> None:
    html = answer("```html\n<h1>not a heading</h1>\n```\n\n<h4>raw</h4>\n")
    assert levels(html) == []
    assert "&lt;h1&gt;not a heading&lt;/h1&gt;" in html
