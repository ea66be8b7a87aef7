"""`%agent status`, `tools` and `history` in JupyterLab: the labels stay on one line ("memory", "saved to", a
tool's name), and long values (the sessions path, a description) wrap inside the cell instead, at a wide window
and a narrow one."""

from __future__ import annotations

from typing import Any

from lab import Lab, ScriptBox, open_notebook, run_cell, wait_cell_done, write_notebook

from jupyter_agent.testing import ScriptedServer, Text, Turn

#: A long notebook name makes a long sessions path, as a real project's often is.
NOTEBOOK = "quarterly-sales-report-with-a-rather-long-name-as-real-projects-have.ipynb"

#: The `.jp-agent-table` in cell `index`'s output: every row as [text, lines it takes] per cell, and how far the
#: table reaches past its output area (px; 0 or less: it fits).
MEASURE = """(index) => {
  const cell = document.querySelectorAll('.jp-Notebook .jp-Cell')[index];
  const area = cell.querySelector('.jp-OutputArea').getBoundingClientRect();
  const table = cell.querySelector('table.jp-agent-table');
  const lines = (el) => { const r = document.createRange(); r.selectNodeContents(el);
    return new Set(Array.from(r.getClientRects()).map(q => Math.round(q.top))).size; };
  return {
    rows: Array.from(table.rows).map(row => Array.from(row.cells).map(c => [c.textContent, lines(c)])),
    overflow: table.getBoundingClientRect().right - area.right,
  };
}"""
#: The cells of the reports, and how many leading columns of each are labels.
REPORTS = {"status": (2, 1), "tools": (3, 3), "history": (4, 1)}


def measure(page: Any, index: int) -> dict[str, Any]:
    return page.evaluate(MEASURE, index)


def test_report_labels_stay_on_one_line_and_long_values_wrap(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    box.set([Turn(blocks=[Text("Hello.")])], server)
    (lab.root / "AGENTS.md").write_text("Answer briefly.\n")  # a memory row with a path in it
    write_notebook(
        lab,
        NOTEBOOK,
        ["%load_ext jupyter_agent", "%%agent\nsay hello", "%agent status", "%agent tools", "%agent history"],
    )
    page.set_viewport_size({"width": 1400, "height": 900})
    open_notebook(page, lab, NOTEBOOK)
    for index in range(5):
        run_cell(page, index)
        wait_cell_done(page, index)
    page.locator(".jp-Notebook .jp-Cell").nth(4).locator("table.jp-agent-table").wait_for()

    for width in (1400, 760):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_function(f"() => window.innerWidth === {width}")
        for report, (index, label_columns) in REPORTS.items():
            table = measure(page, index)
            labels = [cell for row in table["rows"] for cell in row[:label_columns]]
            broken = [text for text, lines in labels if lines != 1]
            assert not broken, f"{report} at {width} px: these labels break over lines: {broken}"
            assert table["overflow"] <= 1, f"{report} at {width} px runs {table['overflow']} px past the cell"
        status = {row[0][0]: row[1] for row in measure(page, 2)["rows"]}
        assert "AGENTS.md" in status["memory"][0] and ".jsonl" in status["saved to"][0]
        if width == 760:
            assert status["saved to"][1] > 1  # the sessions path wraps instead
