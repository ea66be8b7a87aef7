"""JupyterLab with jupyter-collaboration (real-time collaboration on): the notebook model is a shared
document synced with the server and every page showing the notebook, so an agent's insert must land once —
not once per page, not again when the server saves — and Ctrl+Z still takes it back.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import nbformat
import pytest
from lab import (
    Lab,
    ScriptBox,
    agent_output,
    insert_below_script,
    live_sources,
    notebook_with_ids,
    open_notebook,
    run_cell,
    start_lab,
    stop_lab,
    wait_cell_done,
    wait_for,
)

from jupyter_agent.testing import TEST_API_KEY, ScriptedServer

NEW_SOURCE = "answer = 42  # by the agent, with collaboration on"


@pytest.fixture(scope="module")
def lab(
    tmp_path_factory: pytest.TempPathFactory, model_server: tuple[ScriptedServer, ScriptBox]
) -> Iterator[Lab]:
    """This module's own server, with real-time collaboration on (the other e2e tests run with it off)."""
    lab = start_lab(tmp_path_factory.mktemp("collab"), model_server[0].url, TEST_API_KEY, collaborative=True)
    yield lab
    stop_lab(lab)


def sources_on_disk(lab: Lab, name: str) -> list[str] | None:
    """The saved cells' sources; None while the server is writing the file (Jupyter Server's "atomic" save
    writes the file in place after backing it up, so a reader can see it empty or cut)."""
    try:
        return [cell.source for cell in nbformat.read(lab.root / name, as_version=4).cells]
    except nbformat.reader.NotJSONError:
        return None


def test_a_live_insert_with_collaboration_on_lands_once_in_every_page_and_ctrl_z_removes_it(
    page: Any, browser: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    name = "collab.ipynb"
    notebook_with_ids(
        lab, name, [("load", "%load_ext jupyter_agent"), ("ask", "%%agent\nadd a cell"), ("last", "x = 1")]
    )
    box.set(insert_below_script(NEW_SOURCE), server)
    open_notebook(page, lab, name)
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.collaborative") is True
    other_context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        other = other_context.new_page()  # a second page (a collaborator) on the same notebook and kernel
        open_notebook(other, lab, name)
        run_cell(page, 0)
        wait_cell_done(page, 0)
        run_cell(page, 1)
        output = agent_output(page)
        output.locator("button.jupyter-button:has-text('Allow once')").click(timeout=60_000)
        output.locator("text=Inserted a cell below.").wait_for(timeout=60_000)
        wait_cell_done(page, 1)
        expected = ["%load_ext jupyter_agent", "%%agent\nadd a cell", NEW_SOURCE, "x = 1"]
        # The server saves the shared document: once the cell is on disk, every copy has synced.
        wait_for(
            lambda: NEW_SOURCE in (sources_on_disk(lab, name) or []), 30, "the server to save the insert"
        )
        wait_for(lambda: live_sources(other, name) == expected, 30, "the other page to show the insert")
        assert live_sources(page, name) == expected
        wait_for(lambda: sources_on_disk(lab, name) == expected, 10, "the saved file to hold the insert")
        assert page.locator(".jp-Notebook .jp-Cell .jp-InputArea-editor", has_text=NEW_SOURCE).count() == 1
        assert other.locator(".jp-Notebook .jp-Cell .jp-InputArea-editor", has_text=NEW_SOURCE).count() == 1

        # Both pages greet the kernel and the first greeting wins: that page applies the insert, and it is in
        # that page's undo history (Yjs undoes only local changes), so Ctrl+Z is pressed there.
        touched = [
            p for p in (page, other) if p.locator(".jp-Notebook .jp-Cell.jp-agent-touched").count() == 1
        ]
        assert len(touched) == 1
        undoer = touched[0]
        undoer.locator(".jp-Notebook").first.focus()
        undoer.keyboard.press("Escape")
        undoer.keyboard.press("Control+z")
        without = ["%load_ext jupyter_agent", "%%agent\nadd a cell", "x = 1"]
        wait_for(lambda: live_sources(undoer, name) == without, 10, "Ctrl+Z to remove the cell")
        wait_for(
            lambda: live_sources(page, name) == live_sources(other, name) == without,
            30,
            "every page to lose it",
        )
        wait_for(lambda: sources_on_disk(lab, name) == without, 30, "the server to save the undo")
    finally:
        other_context.close()
