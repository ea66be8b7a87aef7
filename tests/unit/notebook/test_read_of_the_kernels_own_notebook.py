"""Read of this kernel's own notebook while a frontend holds it says the file may be behind the page and points to
NotebookRead (issue #42: models trained on Claude Code reach for Read on an `.ipynb`, and the saved file is silently
behind what the user sees). Another notebook, or one no frontend holds, reads as before."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from dispatch_harness import ToolHarness, file_harness
from notebook_testkit import World, write_notebook

from jupyter_agent.builtin_tools.notebook import notebook_tools

NOTE = (
    "This is this kernel's own notebook, and it is open in a frontend: this is its saved file, which may be behind "
    "the page (unsaved edits, the outputs of cells run since the last save). NotebookRead reads what the user sees"
)


@pytest.fixture(params=["live", "vscode", "file"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    world = World(tmp_path, request.param)
    ToolHarness(world.ctx, notebook_tools()).dispatch("NotebookRead", {})  # the page says hello
    yield world
    world.close()


def test_read_of_the_own_notebook_says_the_file_may_be_behind_the_page(world: World) -> None:
    first = file_harness(world.ctx).call("Read", file_path="analysis.ipynb").content.splitlines()[0]
    if world.backend == "file":
        assert first == "Notebook 'analysis.ipynb' (unknown, 4 cells):"
    else:
        assert first == f"Notebook 'analysis.ipynb' (unknown, 4 cells). {NOTE}:"


def test_read_of_another_notebook_has_no_such_note(world: World, tmp_path: Path) -> None:
    write_notebook(tmp_path / "other.ipynb")
    first = file_harness(world.ctx).call("Read", file_path="other.ipynb").content.splitlines()[0]
    assert first == "Notebook 'other.ipynb' (unknown, 4 cells):"
