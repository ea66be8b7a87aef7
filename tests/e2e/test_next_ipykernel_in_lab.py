"""The next ipykernel in a live JupyterLab, simulated: an internal the shell pump needs is taken out of the
running kernel's memory (the gate "closed", as a version the package does not know would close it).

Nothing can then be clicked or answered while the agent's cell runs. What the user must see: the approval
refused with exactly what is missing and which ipykernel — not a headless client; and the rule kept: the
open notebook is byte-identical on disk, the agent's edit shown as a proposal, the page's cell untouched.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from lab import (
    Lab,
    ScriptBox,
    agent_output,
    live_sources,
    notebook_with_ids,
    open_notebook,
    run_cell,
    wait_cell_done,
)

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn

REMOVE_THE_READER = (
    "get_ipython().kernel.shell_channel_thread.manager._shell_channel_to_main.to_stream = None"
)


def test_with_the_gate_closed_the_open_notebook_is_kept_and_the_approval_says_why(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    on_disk = notebook_with_ids(
        lab,
        "gate.ipynb",
        [
            ("load", "%load_ext jupyter_agent"),
            ("gate", REMOVE_THE_READER),
            ("ask", "%%agent --mode acceptEdits\nfix a"),
            ("target", "a = 1"),
        ],
    )
    box.set(
        [
            Turn(blocks=[ToolUse(name="NotebookRead", input={"cell_id": "target"})]),
            Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "target", "new_source": "a = 2"})]),
            Turn(blocks=[ToolUse(name="RunCode", input={"code": "print('ran')"})]),
            Turn(blocks=[Text("Gate test done.")]),
        ],
        server,
    )
    open_notebook(page, lab, "gate.ipynb")
    for index in (0, 1):
        run_cell(page, index)
        wait_cell_done(page, index)
    run_cell(page, 2)
    output = agent_output(page)
    output.locator("text=Gate test done.").wait_for(timeout=60_000)
    wait_cell_done(page, 2)

    assert (lab.root / "gate.ipynb").read_bytes() == on_disk
    assert live_sources(page, "gate.ipynb")[3] == "a = 1"
    text = output.inner_text()
    missing = (
        f"ipykernel {version('ipykernel')} does not have (the main shell reader "
        "(…_shell_channel_to_main.to_stream._recv_callback / _run_callback))"
    )
    assert "Proposed: a new source for cell 'target' of gate.ipynb — not applied" in text
    assert "no one could approve RunCode print('ran'): in-cell approvals and live notebook edits need" in text
    assert missing in text and "nbclient" not in text
    assert output.locator("button.jupyter-button").count() == 0  # nothing that could not be clicked
    refusal = server.requests[-1]["messages"][-1]["content"][0]
    assert refusal["is_error"] is True and missing in refusal["content"][0]["text"]
