"""Undo restores bytes: a real notebook file the agent edited (nbformat 2, 3, 4.0 without ids, Colab's
two-space layout) comes back byte-identical; when the file changed since, its cells are undone and undo
says exactly what of the agent's write stays."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from agent_testkit import Harness, HarnessFactory

from jupyter_agent.builtin_tools.catalog import builtin_tools
from jupyter_agent.notebook.file_backend import parse_notebook
from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.undo.run import undo_run

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
REAL_NOTEBOOKS = [
    "notebooks/nbformat-test2.ipynb",
    "notebooks/nbformat-test3.ipynb",
    "notebooks/nbformat-test4.ipynb",
    "notebooks/nbformat-v4_5_no_cell_id.ipynb",
    "notebooks/colab-holiday-shopping.ipynb",
    "real/nbconvert-notebook4_jpeg.ipynb",
]


def edit_first_code_cell(harness: HarnessFactory, notebook: Path) -> Harness:
    """A run that reads the notebook and replaces its first code cell's source (a file: no page is open)."""
    cells = parse_notebook(notebook.read_bytes(), notebook.name)["cells"]
    cell_id = next(c["id"] for c in cells if c["cell_type"] == "code")
    script = [
        Turn(blocks=[ToolUse(name="NotebookRead", input={"notebook_path": notebook.name})]),
        Turn(
            blocks=[
                ToolUse(
                    name="NotebookEdit",
                    input={
                        "notebook_path": notebook.name,
                        "cell_id": cell_id,
                        "new_source": "print('agent')",
                    },
                )
            ]
        ),
        Turn(blocks=[Text("edited")]),
    ]
    h = harness(script, tools=builtin_tools(), mode="acceptEdits")
    assert h.run("edit the first code cell").reason == "end_turn"
    return h


def undo(h: Harness) -> str:
    [journal] = h.session.history
    return asyncio.run(undo_run(journal, h.session.ctx))


@pytest.mark.parametrize("source", REAL_NOTEBOOKS, ids=[Path(n).stem for n in REAL_NOTEBOOKS])
def test_undo_puts_back_the_notebook_file_byte_for_byte(
    harness: HarnessFactory, tmp_path: Path, source: str
) -> None:
    notebook = tmp_path / Path(source).name
    shutil.copy(FIXTURES / source, notebook)
    original = notebook.read_bytes()
    h = edit_first_code_cell(harness, notebook)
    assert notebook.read_bytes() != original and b"print('agent')" in notebook.read_bytes()
    report = undo(h)
    assert notebook.read_bytes() == original, report
    assert "restored cell" in report and "kept in" not in report


def test_when_the_file_changed_since_its_cells_are_undone_and_undo_says_what_stays(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    notebook = tmp_path / "nbformat-test4.ipynb"
    shutil.copy(FIXTURES / "notebooks/nbformat-test4.ipynb", notebook)
    original = json.loads(notebook.read_bytes())
    h = edit_first_code_cell(harness, notebook)
    edited = json.loads(notebook.read_bytes())
    edited["cells"][0]["source"] = ["# The user's own title\n"]  # the user's change after the run
    notebook.write_text(json.dumps(edited, indent=1, ensure_ascii=False) + "\n")
    report = undo(h)
    after = json.loads(notebook.read_bytes())
    assert "restored cell cell-3 in nbformat-test4.ipynb" in report
    assert after["cells"][3]["source"] == original["cells"][3]["source"]  # the agent's edit is undone
    assert after["cells"][0]["source"] == ["# The user's own title\n"]  # the user's is not
    assert (
        "kept in nbformat-test4.ipynb (it changed after the agent's last write, so only its cells were "
        "undone): nbformat 4.0 → 4.5; ids added to 9 cell(s)"
    ) in report
