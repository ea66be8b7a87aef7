"""`%agent export` writes untrusted Markdown: a link that would run code loses its target in every spelling a
renderer accepts, and the text around it is left exactly as it was."""

from __future__ import annotations

import pytest

from jupyter_agent.sessions.export import neutralise_markdown


@pytest.mark.parametrize(
    ("written", "exported"),
    [
        ("[docs](javascript:alert(1)) after", "[docs](#) after"),
        ("[bad](JavaScript:a((1))) [next](https://e.org)", "[bad](#) [next](https://e.org)"),
        ("[a](&#106;avascript:alert(1))", "[a](#)"),
        ("[a](&#x6A;avascript&colon;alert(1))", "[a](#)"),
        ("[a](java\tscript:x)", "[a](#)"),
        ("[a]( vbscript:msgbox)", "[a](#)"),
        ("[u](data:text/html,<b>hi</b>", "[u](#)"),
        ("see [x][id]\n[id]: javascript:alert(1)\n", "see [x][id]\n[id]: #\n"),
        ("[a](javascript:x\\)y) tail", "[a](#) tail"),
    ],
)
def test_a_link_that_would_run_code_loses_its_target(written: str, exported: str) -> None:
    assert neutralise_markdown(written) == exported


@pytest.mark.parametrize(
    "text",
    [
        "[ok](https://x.org/a_(b)) and [rel](notes.md)",
        "a list: f(x) ](not a link) and [data](https://e.org/data:1)",
        "[id]: https://e.org/javascript:guide",
    ],
)
def test_other_links_and_text_stay_as_written(text: str) -> None:
    assert neutralise_markdown(text) == text
