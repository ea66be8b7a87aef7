"""A notebook open in JupyterLab with another kernel is never written on disk by this kernel's agent."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from notebook_testkit import World, write_notebook

from jupyter_agent.base.errors import ToolError


def test_a_notebook_open_in_another_tab_is_refused_and_its_file_kept(tmp_path: Path) -> None:
    world = World(tmp_path, "live")
    try:
        other = write_notebook(tmp_path / "other.ipynb")
        before = other.read_bytes()
        assert world.page is not None
        world.page.also_open = ["other.ipynb"]
        with pytest.raises(ToolError) as refused:
            asyncio.run(world.notebooks.open_for_write(str(other)))
        assert refused.value.code == "NOT_AVAILABLE"
        assert str(refused.value) == (
            "'other.ipynb' is open in JupyterLab with another kernel; the agent does not write the file of an open "
            "notebook. Ask the user to run %%agent in that notebook, or to close it first"
        )
        assert other.read_bytes() == before
        # Reading it is harmless: its saved file.
        read = asyncio.run(world.notebooks.open(str(other)))
        assert not read.live and read.path == other.resolve()
    finally:
        world.close()


def test_a_closed_notebook_is_edited_as_a_file_while_the_page_is_live(tmp_path: Path) -> None:
    world = World(tmp_path, "live")
    try:
        closed = write_notebook(tmp_path / "closed.ipynb")
        access = asyncio.run(world.notebooks.open_for_write(str(closed)))
        assert access.decision.kind == "file" and not access.book.live
    finally:
        world.close()
