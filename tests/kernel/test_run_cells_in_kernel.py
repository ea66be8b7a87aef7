"""RunCell with `cell_ids` in a real kernel: one approval, the cells run in notebook order on the kernel's main
thread, the batch stops at the first error, and the cells after it do not run — in a JupyterLab page (outputs
written into the cells) and in VS Code (the saved cells run; their outputs shown in the %%agent cell)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from frontend import AgentKernel, result_text, tool_results
from nbformat.v4 import new_code_cell, new_notebook
from notebook_page import NotebookPage
from test_vscode_protocol import like_vscode, vscode_cell

from jupyter_agent.notebook.cells import new_cell_json
from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

CELLS = [
    ("load", "ran = ['load']\nprint('loaded')"),
    ("calc", "ran.append('calc')\nsales = {}\nsales['March']"),
    ("plot", "ran.append('plot')\nprint('plotted')"),
]
SCRIPT = [
    Turn(blocks=[ToolUse(name="RunCell", input={"cell_ids": ["load", "calc", "plot"]})]),
    Turn(blocks=[Text("calc failed.")]),
]
EXPECTED_LINES = [
    "EXECUTION_ERROR: ran load (1 line of output)",
    "failed calc: KeyError: 'March'",
    "not run: plot",
]


def test_a_batch_in_the_page_asks_once_runs_in_order_and_stops_at_the_failing_cell(
    agent_kernel: AgentKernel,
) -> None:
    frontend, server = agent_kernel(SCRIPT)
    page = NotebookPage(frontend)
    page.cells = [new_cell_json("code", source, cell_id=cell_id) for cell_id, source in CELLS]
    cell = frontend.execute("%%agent\nrun the analysis")
    frontend.click("Allow once")  # one approval for the three cells
    frontend.wait(lambda: cell.done, 90, "the agent cell")
    assert cell.reply is not None and cell.reply["status"] == "ok", cell.text()
    assert "calc failed." in cell.text() and len(frontend.buttons("Allow once")) == 1

    assert frontend.run("print(ran)").text().strip() == "['load', 'calc']"  # plot never ran
    text = result_text(tool_results(server.requests[1])[0])
    assert text.splitlines()[:3] == EXPECTED_LINES
    assert "--- cell calc ---\nEXECUTION_ERROR: the code raised KeyError: 'March'\nTraceback" in text
    outputs = {c["id"]: c.get("outputs", []) for c in page.cells}
    assert [o.get("text") for o in outputs["load"]] == ["loaded\n"]
    assert [o["output_type"] for o in outputs["calc"]] == ["error"] and outputs["calc"][0][
        "ename"
    ] == "KeyError"
    assert outputs["plot"] == []  # not run: nothing written into it


def test_a_batch_in_vscode_runs_the_saved_cells_and_shows_each_ones_outputs_in_the_agent_cell(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    notebook = tmp_path / "analysis.ipynb"
    nb = new_notebook()
    for cell_id, source in [*CELLS, ("ask", "%%agent --allow RunCell\nrun the analysis")]:
        made = new_code_cell(source)
        made.id = cell_id
        nb.cells.append(made)
    nbformat.write(nb, notebook)
    on_disk = notebook.read_bytes()
    frontend, server = agent_kernel(SCRIPT, env={"JPY_SESSION_NAME": ""})
    like_vscode(frontend, notebook, "unanswered")

    cell = frontend.run(nb.cells[-1].source, timeout=90, cell_id=vscode_cell(notebook, "ask"))

    assert cell.reply is not None and cell.reply["status"] == "ok", cell.text()
    assert frontend.run("print(ran)").text().strip() == "['load', 'calc']"
    text = result_text(tool_results(server.requests[1])[0])
    assert text.splitlines()[:3] == EXPECTED_LINES
    assert "its outputs are shown in this %%agent cell's output, not written into the cell" in text
    shown = cell.text()
    assert "Outputs of cell 'load'" in shown and "loaded" in shown and "Outputs of cell 'calc'" in shown
    assert "Outputs of cell 'plot'" not in shown and "plotted" not in shown
    assert notebook.read_bytes() == on_disk  # VS Code holds the notebook: never written


@pytest.mark.parametrize("attempt", range(3))
def test_interrupt_during_a_batch_stops_it_and_the_cells_after_do_not_run(
    agent_kernel: AgentKernel, tmp_path: Path, attempt: int
) -> None:
    from test_interrupt_stops_the_run import carry_on, interrupted, scripted

    plan = [
        Turn(blocks=[ToolUse(name="RunCell", input={"cell_ids": ["first", "slow", "last"]})]),
        Turn(blocks=[Text("never asked")]),
    ]
    frontend, server = agent_kernel(scripted(plan))
    page = NotebookPage(frontend)
    page.cells = [
        new_cell_json("code", "open('first-ran', 'w').close()", cell_id="first"),
        new_cell_json("code", "open('started', 'w').close()\nimport time\ntime.sleep(120)", cell_id="slow"),
        new_cell_json("code", "open('last-ran', 'w').close()", cell_id="last"),
    ]
    cell = frontend.execute("%%agent --mode bypassPermissions\nrun them")
    frontend.wait(lambda: (tmp_path / "started").exists(), 60, "the slow cell to start")
    frontend.km.interrupt_kernel()
    frontend.wait(lambda: cell.done, 30, "the interrupted cell")
    assert interrupted(cell), cell.reply
    carry_on(frontend)

    assert (tmp_path / "first-ran").exists() and not (tmp_path / "last-ran").exists()
    [result] = tool_results(server.requests[1])
    text = result_text(result)
    assert result["is_error"] and text.splitlines()[:3] == [
        "INTERRUPTED: ran first (no output)",
        "failed slow: INTERRUPTED",
        "not run: last",
    ]
    assert [c.get("outputs", []) for c in page.cells if c["id"] == "last"] == [[]]


def test_each_cell_of_a_run_gets_and_keeps_its_own_execution_count(agent_kernel: AgentKernel) -> None:
    """Two cells of one call, and a third in a later call of the run: three counts, none the agent cell's or the
    next user cell's (issue #42: "ran as [5]" twice, stored as 5 twice)."""
    script = [
        Turn(blocks=[ToolUse(name="RunCell", input={"cell_ids": ["load", "plot"]})]),
        Turn(blocks=[ToolUse(name="RunCell", input={"cell_id": "calc"})]),
        Turn(blocks=[Text("Ran them.")]),
    ]
    frontend, server = agent_kernel(script)
    page = NotebookPage(frontend)
    sources = {"load": "ran = ['load']", "calc": "ran.append('calc')", "plot": "ran.append('plot')"}
    page.cells = [new_cell_json("code", source, cell_id=cell_id) for cell_id, source in sources.items()]
    agent = frontend.run("%%agent --allow RunCell\nrun them", timeout=90)
    assert agent.reply is not None and agent.reply["status"] == "ok", agent.text()
    after = frontend.run("ran")
    stored = {c["id"]: c.get("execution_count") for c in page.cells}
    told = [result_text(tool_results(server.requests[step])[0]) for step in (1, 2)]
    assert f"ran as [{stored['load']}]" in told[0] and f"ran as [{stored['plot']}]" in told[0]
    assert f"ran as [{stored['calc']}]" in told[1]
    counts = [stored["load"], stored["plot"], stored["calc"], agent.reply["execution_count"]]
    numbers = [count for count in counts if isinstance(count, int)]
    assert numbers == counts and numbers == sorted(set(numbers)), counts  # distinct, in the order they ran
    assert after.reply is not None and after.reply["execution_count"] > agent.reply["execution_count"]
