"""The quickstart run as a user leaves it: saved, the kernel restarted, the page reloaded. Every widget the agent
showed is gone with its kernel, and what shows in its place is what happened — never "Error displaying widget"
and never a change said to be "pending" that was undone since."""

from __future__ import annotations

import json
import os
import shutil
from typing import Any

import nbformat
from lab import ARTIFACTS, ROOT, Lab, after_pending_tasks, cell_output, open_notebook

SHOT = "reopened-notebook.png"
STATIC_MIME = "application/vnd.jupyter-agent.static+json"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
PANEL = "window.jupyterapp.shell.currentWidget"
#: The quickstart chooses its offline demo only when the user set no key; the test server sets one.
OFFLINE = "import os\n\nos.environ.pop('ANTHROPIC_API_KEY', None)\nos.environ.pop('ANTHROPIC_BASE_URL', None)"


def quickstart(lab: Lab) -> tuple[str, int]:
    """The quickstart, offline; its name and the index of its `%%agent` cell."""
    notebook = nbformat.read(ROOT / "notebooks" / "quickstart.ipynb", as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(OFFLINE))
    nbformat.write(notebook, lab.root / "reopened.ipynb")
    agent = next(i for i, c in enumerate(notebook.cells) if c.source.startswith("%%agent"))
    return "reopened.ipynb", agent


def run_all_answering(page: Any, agent: int) -> None:
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    cell_output(page, agent).locator("button:has-text('Allow once')").first.click(timeout=90_000)
    page.wait_for_function(
        "() => { const ps = Array.from(document.querySelectorAll('.jp-Notebook .jp-Cell .jp-InputArea-prompt'));"
        " return ps.length > 0 && ps.every(p => !p.textContent.includes('*'))"
        " && /\\[\\d+\\]/.test(ps[ps.length - 1].textContent); }",
        timeout=120_000,
    )


def agent_displays(notebook: Any) -> list[dict[str, Any]]:
    return [
        dict(output["data"])
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if "data" in output and STATIC_MIME in output["data"]
    ]


def shown_text(page: Any) -> str:
    return page.evaluate("() => document.querySelector('.jp-Notebook').innerText")


def test_the_quickstart_reopens_clean_after_a_save_a_restart_and_a_reload(page: Any, lab: Lab) -> None:
    name, agent = quickstart(lab)
    open_notebook(page, lab, name)
    run_all_answering(page, agent)
    # `%agent undo` ran after `%agent review`: the review's output says so before anything is saved.
    page.wait_for_function(
        f"() => JSON.stringify({PANEL}.content.model.sharedModel.cells.map(c => c.outputs || []))"
        ".includes(' · undone')",
        timeout=30_000,
    )
    page.evaluate(f"() => {PANEL}.context.save()")
    saved = nbformat.read(lab.root / name, as_version=4)
    displays = agent_displays(saved)
    assert displays, "the run showed no review widget"
    for data in displays:  # each widget display carries its static rendering, true after the run
        assert {"text/plain", "text/html"} <= data.keys()
        assert "pending" not in data["text/plain"] + data["text/html"], data
    review_texts = [d["text/plain"] for d in displays]
    assert any("sales_loader.py changed" in t and "· undone" in t for t in review_texts), review_texts

    page.evaluate(f"() => {PANEL}.sessionContext.restartKernel()")
    page.wait_for_function(f"() => {PANEL}.sessionContext.session.kernel.status === 'idle'", timeout=60_000)
    after_pending_tasks(page)
    page.wait_for_function(
        f"() => !JSON.stringify({PANEL}.content.model.sharedModel.cells.map(c => c.outputs || []))"
        f".includes({WIDGET_MIME!r})",
        timeout=15_000,
    )
    text = shown_text(page)
    assert "Error displaying widget" not in text and "pending" not in text
    assert "· undone" in text

    page.evaluate(f"() => {PANEL}.context.save()")
    open_notebook(page, lab, name)  # a reload, against the restarted kernel
    after_pending_tasks(page)
    # The page draws the outputs after it opens: wait for the review's rendering, then read the whole page.
    page.wait_for_function(
        "() => (document.querySelector('.jp-Notebook')?.innerText || '').includes(' · undone')",
        timeout=30_000,
    )
    text = shown_text(page)
    assert "Error displaying widget" not in text and "pending" not in text
    assert "· undone" in text
    page.locator(".jp-Notebook .jp-Cell").nth(agent).scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".jp-Notebook").first.screenshot(path=str(ARTIFACTS / SHOT))
    if os.environ.get("UPDATE_README_SCREENSHOT"):  # refresh the docs' image on purpose only
        shutil.copy(ARTIFACTS / SHOT, ROOT / "docs" / "images" / SHOT)
    reopened = json.loads((lab.root / name).read_text())
    assert WIDGET_MIME not in json.dumps(reopened)  # the saved file, too, shows what happened and no widget
