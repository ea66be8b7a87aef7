"""A kernel driven the way VS Code drives it: the agent never writes the notebook VS Code holds.

VS Code cannot run here; this is its protocol, as measured (shared notes, frontends): the kernel is started by
the editor (no `JPY_SESSION_NAME`), a hidden cell sets `__vsc_ipynb_file__`, every execute request carries a
`vscode-notebook-cell:` URI as `cellId`, nothing answers the notebook comm (or it is closed at once), and the
notebook lives in the editor's buffer — here a list of cells with a change the user has not saved. VS Code
applies a `set_next_input` payload as a new cell below the cell that ran, when it finishes.

A write to the file would conflict with that buffer on save; so edits become proposals shown in the output,
the new cell arrives as the payload, and the file stays byte-identical.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from frontend import AgentKernel, KernelFrontend, context_text, result_text, tool_results
from nbformat.v4 import new_code_cell, new_notebook

from jupyter_agent.notebook.bridge import COMM_TARGET
from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

AGENT_CELL = "%%agent --mode bypassPermissions\ntidy the loader"


def saved_notebook(path: Path) -> bytes:
    nb = new_notebook()
    for cell_id, source in (
        ("load", "df = load()"),
        ("calc", "x = 6 * 7\nprint('x is', x)"),
        ("ask", AGENT_CELL),
    ):
        cell = new_code_cell(source)
        cell.id = cell_id
        nb.cells.append(cell)
    nbformat.write(nb, path)
    return path.read_bytes()


class EditorBuffer:
    """VS Code's copy of the notebook: the saved cells, then whatever the user typed and did not save."""

    def __init__(self, path: Path) -> None:
        self.cells = [{"id": c.id, "source": c.source} for c in nbformat.read(path, as_version=4).cells]

    def type_into(self, cell_id: str, source: str) -> None:
        next(c for c in self.cells if c["id"] == cell_id)["source"] = source

    def apply_payloads(self, reply: dict[str, Any], below: str) -> None:
        """What VS Code does with the execute reply of the cell `below`: a new cell per set_next_input."""
        for payload in reply.get("payload", []):
            if payload.get("source") == "set_next_input" and not payload.get("replace"):
                index = next(i for i, c in enumerate(self.cells) if c["id"] == below)
                self.cells.insert(index + 1, {"id": "new", "source": payload["text"]})


def vscode_cell(path: Path, handle: str) -> str:
    return f"vscode-notebook-cell:{path.as_posix().replace(' ', '%20')}#{handle}"


def like_vscode(frontend: KernelFrontend, notebook: Path, comm: str) -> None:
    """VS Code's hidden start-up cell, and what it does with the notebook comm (nothing, or close it)."""
    if comm == "closed":
        frontend.comm_targets[COMM_TARGET] = lambda comm_id, _data: frontend.close_comm(comm_id)
    hidden = frontend.run(f"__vsc_ipynb_file__ = {str(notebook)!r}", cell_id=vscode_cell(notebook, "hidden"))
    assert hidden.reply is not None and hidden.reply["status"] == "ok"


SCRIPT = [
    Turn(blocks=[ToolUse(name="NotebookRead", input={})]),
    Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "load", "new_source": "df = load(fix_march=True)"})]),
    Turn(blocks=[ToolUse(name="NotebookEdit", input={"edit_mode": "insert", "cell_type": "code", "new_source": "df.describe()"})]),
    Turn(blocks=[ToolUse(name="NotebookEdit", input={"edit_mode": "insert", "cell_type": "code", "new_source": "df.plot()"})]),
    Turn(blocks=[ToolUse(name="RunCell", input={"cell_id": "calc"})]),
    Turn(blocks=[ToolUse(name="Write", input={"file_path": "analysis.ipynb", "content": "{}"})]),
    Turn(blocks=[Text("Proposed the fix.")]),
]  # fmt: skip


@pytest.mark.parametrize("comm", ["unanswered", "closed"])
def test_in_vscode_the_open_notebook_is_never_written_and_edits_become_proposals(
    agent_kernel: AgentKernel, tmp_path: Path, comm: str
) -> None:
    notebook = tmp_path / "analysis.ipynb"
    on_disk = saved_notebook(notebook)
    buffer = EditorBuffer(notebook)
    buffer.type_into("load", "df = load()  # unsaved: the user is typing here")
    frontend, server = agent_kernel(SCRIPT, env={"JPY_SESSION_NAME": ""})
    like_vscode(frontend, notebook, comm)

    cell = frontend.run(AGENT_CELL, timeout=90, cell_id=vscode_cell(notebook, "W2sZmlsZQ%3D%3D"))

    assert cell.reply is not None and cell.reply["status"] == "ok", cell.text()
    assert notebook.read_bytes() == on_disk  # the file VS Code would save over is untouched
    # The session context names the notebook and what can be done with it in VS Code.
    context = context_text(server.requests[0])
    assert f"- Notebook: {notebook} — open in VS Code: NotebookRead reads its saved file" in context
    read, replace, insert, second, run, write = (
        result_text(tool_results(r)[0]) for r in server.requests[1:7]
    )
    # NotebookRead: the saved file, said to be one; the running cell found by its source.
    assert (
        "the saved file of the notebook open in VS Code; changes not yet saved in the editor are not visible"
        in read
    )
    assert "the running %%agent cell is 'ask' at position 3" in read
    assert "unsaved: the user is typing here" not in read
    # NotebookEdit: shown, not applied — and the model is told so.
    assert replace.startswith("Proposed, not applied: VS Code holds 'analysis.ipynb' in its editor")
    assert "shown to the user in this cell's output, ready to copy into the cell" in replace
    assert "VS Code inserts it below the %%agent cell when this cell finishes" in insert
    assert "Only the first new code cell of a run can be inserted for the user." in second
    # RunCell runs the saved source; its outputs are shown here, not written into the notebook.
    assert run.startswith("x is 42\n")
    assert "shown in this %%agent cell's output, not written into the cell" in run
    assert "the source that ran was read from the saved file of the notebook open in VS Code" in run
    # Write on the notebook's path goes through the same rule.
    assert write.startswith("INVALID_ARGS: 'analysis.ipynb' is this kernel's own notebook")
    shown = cell.text()
    assert "Proposed: a new source for cell 'load' of analysis.ipynb — not applied" in shown
    assert "df = load(fix_march=True)" in shown and "Outputs of cell 'calc'" in shown and "x is 42" in shown
    # One new cell per execution, as a set_next_input payload; VS Code inserts it below the agent cell.
    payloads = [p for p in cell.reply["payload"] if p.get("source") == "set_next_input"]
    assert payloads == [{"source": "set_next_input", "text": "df.describe()", "replace": False}]
    buffer.apply_payloads(cell.reply, below="ask")
    assert buffer.cells == [
        {"id": "load", "source": "df = load()  # unsaved: the user is typing here"},  # the user's work stays
        {"id": "calc", "source": "x = 6 * 7\nprint('x is', x)"},
        {"id": "ask", "source": AGENT_CELL},
        {"id": "new", "source": "df.describe()"},
    ]
    status = frontend.run("%agent status", cell_id=vscode_cell(notebook, "status")).text()
    assert "frontend: VS Code (__vsc_ipynb_file__ is set in the namespace)" in status
    assert "backend:  proposals: changes are shown to apply, never written" in status
