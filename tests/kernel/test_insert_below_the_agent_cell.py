"""A NotebookEdit insert without cell_id into the kernel's own notebook lands right below the running
`%%agent` cell (the frontend names it as `cellId` in the execute request), not at the top — in the live page;
the file on disk is not written."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from frontend import AgentKernel
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from notebook_page import NotebookPage

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel


def test_an_insert_without_cell_id_goes_below_the_running_agent_cell(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    nb = new_notebook()
    for cell_id, cell in (
        ("intro", new_markdown_cell("# Sales")),
        ("load", new_code_cell("df = load()")),
        ("ask", new_code_cell("%%agent\nadd a note")),
        ("plot", new_code_cell("df.plot()")),
    ):
        cell.id = cell_id
        nb.cells.append(cell)
    nbformat.write(nb, tmp_path / "analysis.ipynb")
    on_disk = (tmp_path / "analysis.ipynb").read_bytes()
    script = [
        Turn(
            blocks=[
                ToolUse(
                    name="NotebookEdit",
                    input={"edit_mode": "insert", "cell_type": "markdown", "new_source": "A note."},
                )
            ]
        ),
        Turn(blocks=[Text("added")]),
    ]
    frontend, _server = agent_kernel(script)
    page = NotebookPage(frontend)
    page.cells = [dict(cell, source="".join(cell.source)) for cell in nb.cells]
    frontend.run("%agent mode acceptEdits")
    execution = frontend.execute("%%agent\nadd a note", cell_id="ask")
    frontend.wait(lambda: execution.done, 90, "the %%agent cell")
    sources = [cell["source"] for cell in page.cells]
    assert sources == ["# Sales", "df = load()", "%%agent\nadd a note", "A note.", "df.plot()"], (
        execution.text()
    )
    assert (tmp_path / "analysis.ipynb").read_bytes() == on_disk
