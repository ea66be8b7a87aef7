"""The quickstart notebook as a newcomer opens it in JupyterLab: nothing to save before they have done anything."""

from __future__ import annotations

import platform
from typing import Any

import nbformat
from lab import ROOT, Lab, open_notebook


def test_the_quickstart_notebook_is_not_modified_by_opening_it(page: Any, lab: Lab) -> None:
    notebook = nbformat.read(ROOT / "notebooks" / "quickstart.ipynb", as_version=4)
    # The one thing that differs from machine to machine: the kernel's Python version, which JupyterLab writes into
    # the metadata on opening (the tracked file has the version it was last saved with).
    notebook.metadata["language_info"]["version"] = platform.python_version()
    nbformat.write(notebook, lab.root / "quickstart.ipynb")
    open_notebook(page, lab, "quickstart.ipynb")
    panel = "window.jupyterapp.shell.currentWidget"
    # the kernel's language_info has reached the model: everything opening does to it is done
    page.wait_for_function(f"() => !!{panel}.content.model.getMetadata('language_info')", timeout=30_000)
    page.wait_for_function(f"() => {panel}.context.isReady", timeout=30_000)
    assert page.evaluate(f"() => {panel}.context.model.dirty") is False
