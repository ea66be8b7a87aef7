"""In Notebook 7 (`jupyter notebook`, the single-document UI on the same server): an approval, a live insert
right below the running `%%agent` cell, and Ctrl+Z in command mode to take it back.

Notebook 7 is built from JupyterLab's notebook packages but has its own shell and key bindings, so what works
in JupyterLab is tried here again in the page a Notebook 7 user sees.
"""

from __future__ import annotations

from typing import Any

from lab import (
    Lab,
    ScriptBox,
    agent_output,
    insert_below_script,
    live_sources,
    notebook_with_ids,
    open_notebook_7,
    run_cell,
    wait_cell_done,
    wait_for,
    write_notebook,
)

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn


def open_in_notebook_7(page: Any, lab: Lab, name: str) -> None:
    open_notebook_7(page, lab, name)
    assert page.evaluate("() => window.jupyterapp.name") == "Jupyter Notebook"
    run_cell(page, 0)  # %load_ext jupyter_agent
    wait_cell_done(page, 0)


def test_approve_an_edit_in_notebook_7_changes_the_file_and_shows_the_answer(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    (lab.root / "nb7_loader.py").write_text("months = range(1, 3)\n")
    box.set(
        [
            Turn(blocks=[ToolUse(name="Read", input={"file_path": "nb7_loader.py"})]),
            Turn(
                blocks=[
                    Text("Fixing the range."),
                    ToolUse(
                        name="Edit",
                        input={"file_path": "nb7_loader.py", "old_string": "(1, 3)", "new_string": "(1, 4)"},
                    ),
                ]
            ),
            Turn(blocks=[Text("**Fixed** in Notebook 7: March is loaded.")]),
        ],
        server,
    )
    write_notebook(lab, "nb7-edit.ipynb", ["%load_ext jupyter_agent", "%%agent\nFix nb7_loader.py."])
    open_in_notebook_7(page, lab, "nb7-edit.ipynb")
    run_cell(page, 1)
    output = agent_output(page)
    approve = output.locator("button.jupyter-button:has-text('Allow once')")
    approve.wait_for(timeout=60_000)
    assert "(1, 4)" in output.locator(".jp-agent-approval").inner_text()
    assert (lab.root / "nb7_loader.py").read_text() == "months = range(1, 3)\n"  # nothing before the click
    approve.click()
    output.locator("text=in Notebook 7: March is loaded.").wait_for(timeout=60_000)
    wait_cell_done(page, 1)
    assert (lab.root / "nb7_loader.py").read_text() == "months = range(1, 4)\n"
    text = output.inner_text()
    assert "Edit nb7_loader.py" in text and "allowed once" in text


def test_a_live_insert_in_notebook_7_lands_below_the_agent_cell_and_ctrl_z_removes_it(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    on_disk = notebook_with_ids(
        lab,
        "nb7-live.ipynb",
        [("load", "%load_ext jupyter_agent"), ("ask", "%%agent\nadd a cell"), ("last", "x = 1")],
    )
    new_source = "answer = 42  # by the agent in Notebook 7"
    box.set(insert_below_script(new_source), server)
    open_in_notebook_7(page, lab, "nb7-live.ipynb")
    run_cell(page, 1)
    output = agent_output(page)
    output.locator("button.jupyter-button:has-text('Allow once')").click(timeout=60_000)
    # Live: the page shows the cell while the run is still going, before the answer arrives.
    wait_for(lambda: new_source in live_sources(page, "nb7-live.ipynb"), 60, "the inserted cell in the page")
    page.locator(".jp-Notebook .jp-Cell.jp-agent-touched", has_text=new_source).wait_for(timeout=10_000)
    output.locator("text=Inserted a cell below.").wait_for(timeout=60_000)
    wait_cell_done(page, 1)
    assert live_sources(page, "nb7-live.ipynb") == [
        "%load_ext jupyter_agent",
        "%%agent\nadd a cell",
        new_source,
        "x = 1",
    ]
    assert page.locator(".jp-Notebook .jp-Cell.jp-agent-touched").count() == 1
    assert (lab.root / "nb7-live.ipynb").read_bytes() == on_disk  # not written until the user saves
    page.keyboard.press("Escape")
    page.locator(".jp-Notebook").first.focus()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+z")  # command mode: the notebook's undo, bound by the extension like Z
    wait_for(lambda: new_source not in live_sources(page, "nb7-live.ipynb"), 10, "Ctrl+Z to remove the cell")
    assert live_sources(page, "nb7-live.ipynb") == ["%load_ext jupyter_agent", "%%agent\nadd a cell", "x = 1"]
    assert (lab.root / "nb7-live.ipynb").read_bytes() == on_disk
