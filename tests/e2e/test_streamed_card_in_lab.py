"""A long NotebookEdit streamed slowly shows its card in JupyterLab while the model writes it: the card is drawn,
marked "writing…", with the source written so far, before the block ends; the call runs only once it is whole."""

from __future__ import annotations

from typing import Any

import nbformat
from lab import Lab, ScriptBox, agent_output, notebook_with_ids, open_notebook, run_cell, wait_cell_done
from nbformat.v4 import new_notebook

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn

SOURCE = "".join(f"value_{i} = {i} * 2\n" for i in range(199)) + "last_line = True\n"


def test_a_slowly_streamed_notebook_edit_shows_its_partial_source_before_the_block_ends(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    nbformat.write(new_notebook(), lab.root / "long.ipynb")  # another notebook, written as a file
    edit = ToolUse(
        name="NotebookEdit",
        input={
            "notebook_path": "long.ipynb",
            "edit_mode": "insert",
            "cell_type": "code",
            "new_source": SOURCE,
        },
    )
    box.set(
        [Turn(blocks=[edit], chunk_size=48, delay=0.05), Turn(blocks=[Text("Inserted the long cell.")])],
        server,
    )
    notebook_with_ids(
        lab,
        "stream.ipynb",
        [("load", "%load_ext jupyter_agent"), ("ask", "%%agent --mode acceptEdits\nwrite it")],
    )
    open_notebook(page, lab, "stream.ipynb")
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 1)
    output = agent_output(page)
    writing = output.locator(".jp-agent-card[data-status='writing']")
    writing.locator("text=value_3 = 3 * 2").wait_for(timeout=60_000)  # part of the source, drawn
    seen = writing.inner_text()
    assert "writing…" in seen and "last_line = True" not in seen  # the block had not ended
    assert nbformat.read(lab.root / "long.ipynb", as_version=4).cells == []  # nothing ran yet
    output.locator("text=Inserted the long cell.").wait_for(timeout=60_000)
    wait_cell_done(page, 1)
    assert output.locator(".jp-agent-card[data-status='writing']").count() == 0
    [cell] = nbformat.read(lab.root / "long.ipynb", as_version=4).cells
    assert cell.source == SOURCE.rstrip("\n") or cell.source == SOURCE
