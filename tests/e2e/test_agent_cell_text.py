"""A `%%agent` cell reads as a request: plain text, not Python (no keyword or decorator colours), wrapped at
800 px; a Python cell beside it keeps its highlighting."""

from __future__ import annotations

from typing import Any

from lab import Lab, open_notebook, write_notebook

REQUEST = (
    "%%agent\nfor each month in @sales and in the forecast, find out why March is missing from the loader and "
    "fix it if you can, then tell me which rows were dropped and whether any other month is affected as well"
)
PYTHON = "for month in range(1, 4):\n    print(month)"

#: Highlighted tokens inside the editor's lines (selection and bracket marks are not highlighting).
TOKENS_JS = """(cell) => Array.from(cell.querySelectorAll('.cm-content .cm-line span')).filter(
  s => !/cm-(selectionMatch|matchingBracket|nonmatchingBracket)/.test(s.className)).map(
  s => s.className + ':' + s.textContent)"""


def test_an_agent_cell_is_plain_wrapped_text_and_a_python_cell_stays_python(page: Any, lab: Lab) -> None:
    page.set_viewport_size({"width": 800, "height": 900})
    write_notebook(lab, "request.ipynb", [REQUEST, PYTHON])
    open_notebook(page, lab, "request.ipynb")
    cells = page.locator(".jp-Notebook .jp-Cell")
    agent, python = cells.nth(0), cells.nth(1)
    agent.locator(".cm-content.cm-lineWrapping").wait_for(timeout=15_000)
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.content.widgets[0].model.mimeType === 'text/plain'",
        timeout=15_000,
    )
    try:  # the editor loads its new language asynchronously
        page.wait_for_function(
            f"(cell) => ({TOKENS_JS})(cell).length === 0", arg=agent.element_handle(), timeout=10_000
        )
    except Exception:
        raise AssertionError(f"highlighted tokens in the request: {agent.evaluate(TOKENS_JS)}") from None
    assert python.evaluate(TOKENS_JS)  # the same words in a Python cell are highlighted
    scroller = agent.locator(".cm-scroller")
    assert scroller.evaluate("(el) => el.scrollWidth <= el.clientWidth")  # nothing runs off the right edge
    request_line = agent.locator(".cm-line").nth(1).bounding_box()
    assert request_line is not None and request_line["height"] > 40  # the long line wraps onto several rows
