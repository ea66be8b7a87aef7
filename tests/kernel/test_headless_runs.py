"""A notebook run by nbclient (what papermill, `jupyter nbconvert --execute` and voila use): no one can answer.

nbclient sends every cell with `allow_stdin` false, never answers the notebook comm, and saves the state of
every widget it saw into the output notebook's `metadata.widgets` — closed ones too. So a headless run shows
no widgets at all (no Stop button, no probe), refuses what would ask with the reason in text/plain as well
as HTML (nbconvert's text exports and a notebook read as JSON show text/plain), and proposes — never writes
— changes to the notebook nbclient is running.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from jupyter_agent.testing import TEST_API_KEY, ScriptedServer, Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

ROOT = Path(__file__).resolve().parents[2]


def test_a_headless_run_saves_no_widgets_says_why_in_text_and_proposes_instead_of_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "report.ipynb"
    nb = new_notebook(
        cells=[
            new_code_cell("%load_ext jupyter_agent"),
            new_code_cell("%%agent --allow NotebookEdit\nwrite the notes"),
        ]
    )
    nb.cells[1].id = "ask"
    nbformat.write(nb, path)
    on_disk = path.read_bytes()
    script = [
        Turn(blocks=[ToolUse(name="Write", input={"file_path": "a.txt", "content": "x"})]),
        Turn(blocks=[ToolUse(name="Write", input={"file_path": "b.txt", "content": "x"})]),
        Turn(blocks=[ToolUse(name="NotebookEdit", input={"edit_mode": "insert", "cell_type": "markdown", "new_source": "Notes."})]),
        Turn(blocks=[Text("Could not write.")]),
    ]  # fmt: skip
    with ScriptedServer(script) as server:
        for name, value in {
            "PYTHONPATH": str(ROOT),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": TEST_API_KEY,
            "JPY_SESSION_NAME": str(path),  # nbclient does not set it; a user running it by hand may
        }.items():
            monkeypatch.setenv(name, value)
        executed = nbformat.read(path, as_version=4)
        NotebookClient(
            executed, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
        ).execute()

    assert "widgets" not in executed.metadata  # nothing shown that nbclient would keep
    outputs = executed.cells[1].outputs
    plain = "\n".join(
        o.get("data", {}).get("text/plain", "") for o in outputs if o.output_type == "display_data"
    )
    why = (
        "no one could approve Write a.txt: the cell is run by a client that takes no input (allow_stdin is "
        "false: nbclient, papermill, nbconvert --execute or voila). To allow it without asking"
    )
    assert "✏️ Write a.txt  [DENIED" in plain and why in plain
    assert not (tmp_path / "a.txt").exists() and not (tmp_path / "b.txt").exists()
    # The notebook nbclient is running is not written behind it: the insert is shown as a proposal.
    assert path.read_bytes() == on_disk
    assert "Proposed: a new markdown cell in report.ipynb — not applied" in plain
    assert "is being run by a headless client" in plain
