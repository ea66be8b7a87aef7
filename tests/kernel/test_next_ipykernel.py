"""The next ipykernel, simulated: an internal the shell pump needs is gone from the running kernel.

The pump checks for each ipykernel internal it uses (feature detection). Here the main shell reader the pump
hands held messages back to is taken out of the kernel's memory — the kernel itself keeps running (its reader
stays registered with the event loop). What a user must then get: approvals that say exactly what is missing
and which ipykernel this is (not "nbclient/papermill"), and the rule kept — the open notebook is not written
on disk; its edit becomes a proposal that says why.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import nbformat
import pytest
from frontend import AgentKernel, result_text, tool_results
from nbformat.v4 import new_code_cell, new_notebook
from notebook_page import NotebookPage

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

REMOVE_THE_READER = (
    "get_ipython().kernel.shell_channel_thread.manager._shell_channel_to_main.to_stream = None  "
    "# as if this ipykernel had no such reader"
)


def test_without_an_internal_the_pump_needs_approvals_say_which_and_the_open_notebook_is_kept(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    nb = new_notebook()
    cell = new_code_cell("a = 1")
    cell.id = "a1"
    nb.cells.append(cell)
    nbformat.write(nb, tmp_path / "analysis.ipynb")
    on_disk = (tmp_path / "analysis.ipynb").read_bytes()
    script = [
        Turn(blocks=[ToolUse(name="NotebookRead", input={"cell_id": "a1"})]),
        Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "a1", "new_source": "a = 2"})]),
        Turn(blocks=[ToolUse(name="RunCode", input={"code": "print('ran')"})]),
        Turn(blocks=[Text("done")]),
    ]
    frontend, server = agent_kernel(script)
    NotebookPage(frontend)  # a JupyterLab page with the extension: it would answer if it could be heard
    removed = frontend.run(REMOVE_THE_READER)
    assert removed.reply is not None and removed.reply["status"] == "ok", removed.text()
    cell_run = frontend.run("%%agent --mode acceptEdits\nfix a", timeout=90)
    assert cell_run.reply is not None and cell_run.reply["status"] == "ok", cell_run.text()

    reader = "the main shell reader (…_shell_channel_to_main.to_stream._recv_callback / _run_callback)"
    missing = f"ipykernel {version('ipykernel')} does not have ({reader})"
    edit, code = (result_text(tool_results(r)[0]) for r in server.requests[2:4])
    # The rule holds: the open notebook is not written; the edit is a proposal that says why.
    assert (tmp_path / "analysis.ipynb").read_bytes() == on_disk
    # The page greeted at `%load_ext`, while the kernel was idle: it is known to be open, and still unreachable.
    assert edit.startswith(
        "Proposed, not applied: 'analysis.ipynb' is open in JupyterLab, but the page cannot be reached while a "
        "cell runs"
    )
    assert missing in edit
    # The approval says exactly what is missing, with the version — not a headless client.
    assert code.startswith(
        "DENIED: RunCode: no one could approve RunCode print('ran'): in-cell approvals and live"
    )
    assert missing in code and "nbclient" not in code and "papermill" not in code
    assert missing in cell_run.text()  # the card's text/plain says it too
    # No Stop button nobody could click.
    assert not frontend.buttons("Stop")
