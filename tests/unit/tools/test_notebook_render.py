"""render_notebook: cells as text with ids, types, counts, sources, and outputs cut to a budget."""

from __future__ import annotations

from typing import Any

from jupyter_agent.notebook.render import cell_id, render_cell, render_notebook, render_output


def code(source: str, *outputs: dict[str, Any], cell: str = "c1", count: int | None = 1) -> dict[str, Any]:
    return {
        "cell_type": "code",
        "id": cell,
        "source": source,
        "execution_count": count,
        "outputs": list(outputs),
    }


def test_an_error_output_shows_the_traceback_without_colours() -> None:
    output = {
        "output_type": "error",
        "ename": "KeyError",
        "evalue": "'March'",
        "traceback": ["\x1b[0;31mKeyError\x1b[0m Traceback", "\x1b[0;31mKeyError\x1b[0m: 'March'"],
    }
    assert render_output(output) == "KeyError Traceback\nKeyError: 'March'"


def test_stderr_is_labelled() -> None:
    assert render_output({"output_type": "stream", "name": "stderr", "text": "warn\n"}) == "[stderr]\nwarn\n"


def test_html_is_shown_as_text_only_when_there_is_no_plain_text() -> None:
    html = {"output_type": "display_data", "data": {"text/html": "<b>bold</b> <script>x()</script>"}}
    assert render_output(html) == "[text/html] bold x()"


def test_long_outputs_keep_head_and_tail_within_the_budget() -> None:
    out = {"output_type": "stream", "name": "stdout", "text": "".join(f"row {n}\n" for n in range(1000))}
    text = render_cell(code("print(rows)", out), 0, output_chars=200)
    assert "row 0\n" in text and "row 999" in text
    assert "characters" in text and "cut" in text
    assert len(text) < 400


def test_cells_without_ids_get_index_based_ids() -> None:
    assert cell_id({"cell_type": "code", "source": ""}, 4) == "cell-4"


def test_rendering_stops_before_the_total_budget_but_always_shows_one_cell() -> None:
    nb = {"cells": [code("x" * 100, cell=f"c{n}") for n in range(5)]}
    shown = render_notebook(nb, total_chars=350)
    assert (shown.first, shown.last, shown.total) == (0, 1, 5)
    one = render_notebook(nb, start=3, total_chars=10)
    assert (one.first, one.last) == (3, 3)
    assert 'id="c3"' in one.text


def test_a_start_past_the_end_shows_nothing() -> None:
    shown = render_notebook({"cells": [code("x")]}, start=5)
    assert shown.text == "" and shown.last < shown.first


def test_a_null_source_or_text_renders_as_empty_not_as_none() -> None:
    shown = render_cell({**code("x"), "source": None}, 0)
    assert "None" not in shown
    assert render_output({"output_type": "stream", "name": "stdout", "text": None}) == ""
