"""The agent edits the notebook that is open in JupyterLab: live, undoable, never the file on disk, never the
user's fresh typing, never another notebook."""

from __future__ import annotations

from typing import Any

from lab import (
    Lab,
    ScriptBox,
    agent_output,
    cell_text,
    execution_counts,
    insert_below_script,
    live_sources,
    notebook_with_ids,
    open_another,
    open_notebook,
    run_cell,
    run_cell_of,
    wait_cell_done,
    wait_cell_done_of,
    wait_for,
)

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn


def test_an_inserted_cell_appears_live_undo_removes_it_and_the_file_is_untouched(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    on_disk = notebook_with_ids(
        lab, "live.ipynb", [("load", "%load_ext jupyter_agent"), ("ask", "%%agent\nadd a cell")]
    )
    box.set(insert_below_script("answer = 42  # by the agent"), server)
    open_notebook(page, lab, "live.ipynb")
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 1)
    output = agent_output(page)
    output.locator("button.jupyter-button:has-text('Allow once')").click(timeout=60_000)
    output.locator("text=Inserted a cell below.").wait_for(timeout=60_000)
    sources = live_sources(page, "live.ipynb")
    # No cell_id: right below the running %%agent cell (JupyterLab names it in the execute request).
    assert sources[:3] == ["%load_ext jupyter_agent", "%%agent\nadd a cell", "answer = 42  # by the agent"]
    assert page.locator(".jp-Notebook .jp-Cell.jp-agent-touched").count() == 1
    assert (lab.root / "live.ipynb").read_bytes() == on_disk  # not written until the user saves
    page.keyboard.press("Escape")
    page.locator(".jp-Notebook").first.focus()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+z")  # in command mode: the notebook's undo (the extension binds it, like Z)
    wait_for(lambda: "answer = 42  # by the agent" not in live_sources(page, "live.ipynb"), 10, "the undo")
    assert (lab.root / "live.ipynb").read_bytes() == on_disk


def test_typing_into_the_cell_while_the_agent_waits_makes_its_edit_stale(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    notebook_with_ids(
        lab,
        "stale.ipynb",
        [("load", "%load_ext jupyter_agent"), ("ask", "%%agent\nchange it"), ("target", "a = 1")],
    )
    box.set(
        [
            Turn(blocks=[ToolUse(name="NotebookRead", input={"cell_id": "target"})]),
            Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "target", "new_source": "a = 2"})]),
            Turn(blocks=[Text("The cell changed under me; I left it alone.")]),
        ],
        server,
    )
    open_notebook(page, lab, "stale.ipynb")
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 1)
    output = agent_output(page)
    allow = output.locator("button.jupyter-button:has-text('Allow once')")
    allow.wait_for(timeout=60_000)
    target = page.locator(".jp-Notebook .jp-Cell").nth(2).locator(".jp-InputArea-editor")
    target.click()
    page.keyboard.press("End")
    page.keyboard.type("  # mine")
    wait_for(
        lambda: live_sources(page, "stale.ipynb")[2] == "a = 1  # mine", 10, "the typing to reach the model"
    )
    # The keystroke itself refuses the pending edit (the page tells the kernel): no click is needed or possible.
    output.locator("text=The cell changed under me").wait_for(timeout=60_000)
    assert allow.count() == 0
    assert live_sources(page, "stale.ipynb")[2] == "a = 1  # mine"
    assert "STALE_READ" in output.inner_text()
    tool_result = server.requests[-1]["messages"][-1]["content"][0]
    assert tool_result["is_error"] is True and "STALE_READ" in tool_result["content"][0]["text"]


def test_each_kernel_edits_only_its_own_notebook(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server

    def insert(text: str) -> list[Turn]:
        return [
            Turn(blocks=[ToolUse(name="NotebookEdit", input={"edit_mode": "insert", "cell_type": "markdown", "new_source": text})]),
            Turn(blocks=[Text("done")]),
        ]  # fmt: skip

    for name in ("first.ipynb", "second.ipynb"):
        notebook_with_ids(
            lab, name, [("load", "%load_ext jupyter_agent"), ("ask", "%%agent --mode acceptEdits\ninsert")]
        )
    open_notebook(page, lab, "first.ipynb")
    open_another(page, lab, "second.ipynb")
    for name in ("first.ipynb", "second.ipynb"):
        run_cell_of(page, name, 0)
        wait_cell_done_of(page, name, 0)

    def seen() -> dict[str, object]:
        """What each notebook has run (execution counts, in order) and how many requests reached the model."""
        counts = {name: execution_counts(page, name) for name in ("first.ipynb", "second.ipynb")}
        return {
            **counts,
            "requests": len(server.requests),
            "agent output": cell_text(page, "first.ipynb", 1)[-300:],
        }

    box.set(insert("written by the first notebook's agent"), server)
    run_cell_of(page, "first.ipynb", 1)
    wait_for(
        lambda: live_sources(page, "first.ipynb")[-1].startswith("written by the first"),
        60,
        "first insert",
        seen,
    )
    wait_for(lambda: len(server.requests) >= box.offset + 2, 60, "first run to end", seen)
    wait_cell_done_of(page, "first.ipynb", 1)
    box.set(insert("written by the second notebook's agent"), server)
    run_cell_of(page, "second.ipynb", 1)
    wait_for(
        lambda: live_sources(page, "second.ipynb")[-1].startswith("written by the second"),
        60,
        "second insert",
        seen,
    )
    first, second = live_sources(page, "first.ipynb"), live_sources(page, "second.ipynb")
    assert [s for s in first if s.startswith("written")] == ["written by the first notebook's agent"]
    assert [s for s in second if s.startswith("written")] == ["written by the second notebook's agent"]

    # The first agent aims at the second notebook by path: it is open, so its file is not written behind it.
    wait_cell_done_of(page, "second.ipynb", 1)
    on_disk = (lab.root / "second.ipynb").read_bytes()
    reach = [
        Turn(blocks=[ToolUse(name="NotebookEdit", input={"notebook_path": "second.ipynb", "edit_mode": "insert", "cell_type": "markdown", "new_source": "sneaky"})]),
        Turn(blocks=[Text("refused, as expected")]),
    ]  # fmt: skip
    box.set(reach, server)
    run_cell_of(page, "first.ipynb", 1)  # the %%agent cell (the agent's insert went below it)
    wait_for(lambda: len(server.requests) >= box.offset + 2, 60, "the cross-notebook attempt", seen)
    refusal = server.requests[-1]["messages"][-1]["content"][0]
    assert refusal["is_error"] is True
    assert "is open in JupyterLab with another kernel" in refusal["content"][0]["text"]
    assert (lab.root / "second.ipynb").read_bytes() == on_disk
    assert "sneaky" not in live_sources(page, "second.ipynb")
