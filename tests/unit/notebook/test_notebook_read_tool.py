"""NotebookRead: what the model sees (pinned), output budgets, images, the outline of large notebooks, and
which cells count as read."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from notebook_testkit import World

from jupyter_agent.builtin_tools.notebook import NotebookRead
from jupyter_agent.notebook.provider import NotebookProvider
from jupyter_agent.tools import Sandbox, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.context import ToolServices
from jupyter_agent.tools.scope import RunScope

#: A real 1×1 PNG: NotebookRead sniffs what it attaches (a PNG signature alone is not an image).
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


@pytest.fixture(params=["file", "live"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    world = World(tmp_path, request.param)
    yield world
    world.close()


def read(ctx: ToolContext, **params: Any) -> ToolResult:
    tool = NotebookRead()
    return asyncio.run(tool.run(tool.Input(**params), ctx))


def ctx_for(tmp_path: Path, nb: nbformat.NotebookNode) -> ToolContext:
    path = tmp_path / "big.ipynb"
    nbformat.write(nb, path)
    return ToolContext(
        sandbox=Sandbox.at(tmp_path), services=ToolServices(notebooks=NotebookProvider(default_path=path))
    )


def test_a_small_notebook_is_shown_whole(world: World) -> None:
    where = "open in JupyterLab" if world.page else "on disk"
    cells = "".join(
        f'<cell id="c{i}" index="{i + 1}" type="code" execution_count="{i + 1}">\nx = {i}\nprint(x)\n</cell>\n'
        f"<outputs>\n{i}\n</outputs>\n"
        for i in range(3)
    )
    result = read(world.ctx)
    assert result.content == (
        f"Notebook 'analysis.ipynb' ({where}, 4 cells):\n{cells}"
        '<cell id="md" index="4" type="markdown">\n# Notes\nsome text\n</cell>'
    )
    assert result.summary == "Read analysis.ipynb (4 cells)"


def test_every_cell_shown_whole_counts_as_read(world: World) -> None:
    read(world.ctx)
    for cell_id in ("c0", "c1", "c2", "md"):
        assert world.ctx.reads.has_read(f"{world.path.resolve()}#{cell_id}")


def test_one_cell_by_id(world: World) -> None:
    # The session context says the notebook is open live; a cell's header names only a source that is not the page.
    where = "" if world.page else " (on disk)"
    result = read(world.ctx, cell_id="c1")
    assert result.content == (
        f"Cell 2 of 4 in 'analysis.ipynb'{where}:\n"
        '<cell id="c1" index="2" type="code" execution_count="2">\nx = 1\nprint(x)\n</cell>\n<outputs>\n1\n</outputs>'
    )
    assert world.ctx.reads.has_read(f"{world.path.resolve()}#c1")
    assert not world.ctx.reads.has_read(f"{world.path.resolve()}#c0")


def test_an_unknown_cell_id_is_cell_not_found(world: World) -> None:
    with pytest.raises(ToolError) as caught:
        read(world.ctx, cell_id="nope")
    assert (
        caught.value.message
        == "no cell with id 'nope' in analysis.ipynb; call NotebookRead for the current ids"
    )


def test_long_text_output_keeps_head_and_tail_but_errors_stay_whole(tmp_path: Path) -> None:
    cell = new_code_cell("run()", execution_count=1)
    cell.outputs = [
        new_output("stream", name="stdout", text="".join(f"line {i}\n" for i in range(2000))),
        new_output("error", ename="KeyError", evalue="'March'", traceback=[f"frame {i}" for i in range(400)]),
    ]
    result = read(ctx_for(tmp_path, new_notebook(cells=[cell])))
    assert "line 0\n" in result.content and "line 1999" in result.content
    assert "line 1000\n" not in result.content and "characters (" in result.content
    assert all(f"frame {i}\n" in result.content for i in range(399))


def test_images_are_attached_up_to_the_cap(tmp_path: Path) -> None:
    cells = []
    for i in range(6):
        cell = new_code_cell(f"plot({i})", execution_count=i + 1)
        cell.outputs = [new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"})]
        cells.append(cell)
    result = read(ctx_for(tmp_path, new_notebook(cells=cells)))
    assert len(result.images) == 4 and result.images[0].media_type == "image/png"
    assert "[image/png attached as image 4]" in result.content
    assert "[image/png not attached: only 4 images per NotebookRead; read its cell by id]" in result.content


def test_a_large_notebook_comes_back_as_an_outline(tmp_path: Path) -> None:
    cells = [new_markdown_cell("# Big analysis")]
    for i in range(150):
        cell = new_code_cell(f"step_{i}()\nmore()", execution_count=i + 1)
        cell.outputs = [new_output("stream", name="stdout", text="ok\n")]
        cells.append(cell)
    cells[-1].outputs.append(
        new_output("error", ename="ValueError", evalue="bad", traceback=["ValueError: bad"])
    )
    nb = new_notebook(cells=cells)
    for i, cell in enumerate(nb.cells):
        cell.id = f"id{i:03d}"
    ctx = ctx_for(tmp_path, nb)
    result = read(ctx)
    lines = result.content.splitlines()
    assert lines[0] == (
        "Notebook 'big.ipynb' (on disk, 151 cells) is too large to show whole; here is an outline (position, "
        "id, type, first line, outputs). Call NotebookRead with cell_ids for the cells you need, whole with "
        "their outputs."
    )
    assert lines[1] == "   1  id000  markdown  # Big analysis  (1 line)"
    assert lines[2] == "   2  id001  code [1]  step_0()  (2 lines; 1 output: text 3 chars)"
    assert lines[-1] == (
        " 151  id150  code [150]  step_149()  (2 lines; 2 outputs: text 3 chars, error: ValueError)"
    )
    assert result.summary == "Read big.ipynb (outline of 151 cells)"
    assert not ctx.reads.has_read(f"{(tmp_path / 'big.ipynb').resolve()}#id001")


def test_without_a_known_notebook_the_model_is_asked_for_a_path(tmp_path: Path) -> None:
    ctx = ToolContext(
        sandbox=Sandbox.at(tmp_path), services=ToolServices(notebooks=NotebookProvider(default_path=None))
    )
    with pytest.raises(ToolError) as caught:
        read(ctx)
    assert caught.value.code == "NOTEBOOK_NOT_FOUND"
    assert caught.value.message == (
        "this kernel does not know its notebook: it is not running in a Jupyter kernel; pass notebook_path to "
        "work with a notebook file"
    )


def big_notebook(tmp_path: Path, *, running: str | None = None) -> ToolContext:
    """150 code cells, each with an output of a different kind, so the outline has something to tell."""
    cells = []
    for i in range(150):
        cell = new_code_cell(f"step_{i}()", execution_count=i + 1)
        if i % 3 == 0:
            cell.outputs = [new_output("stream", name="stdout", text="row\n" * (i + 1))]
        elif i % 3 == 1:
            cell.outputs = [new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"})]
        cells.append(cell)
    nb = new_notebook(cells=cells)
    for i, cell in enumerate(nb.cells):
        cell.id = f"id{i:03d}"
    ctx = ctx_for(tmp_path, nb)
    return ctx if running is None else ctx.for_run(RunScope(running_cell_id=running))


def test_the_outline_shows_each_cells_output_kind_and_size(tmp_path: Path) -> None:
    lines = read(big_notebook(tmp_path)).content.splitlines()
    assert lines[1] == "   1  id000  code [1]  step_0()  (1 line; 1 output: text 4 chars)"
    assert lines[2] == "   2  id001  code [2]  step_1()  (1 line; 1 output: image/png)"
    assert lines[3] == "   3  id002  code [3]  step_2()  (1 line)"
    assert lines[100] == " 100  id099  code [100]  step_99()  (1 line; 1 output: text 400 chars)"


def test_the_outline_header_of_a_notebook_with_the_running_cell_is_one_sentence(tmp_path: Path) -> None:
    first = read(big_notebook(tmp_path, running="id149")).content.splitlines()[0]
    assert first.startswith(
        "Notebook 'big.ipynb' (on disk, 150 cells; the running %%agent cell is 'id149' at position 150) is too "
        "large to show whole; here is an outline"
    )


def test_cell_ids_return_several_cells_with_their_outputs_in_notebook_order(world: World) -> None:
    where = "" if world.page else " (on disk)"
    tool = NotebookRead()
    result = asyncio.run(tool.run(tool.Input(cell_ids=["c2", "c0"]), world.ctx))
    assert result.content == (
        f"Cells 1, 3 of 4 in 'analysis.ipynb'{where}:\n"
        '<cell id="c0" index="1" type="code" execution_count="1">\nx = 0\nprint(x)\n</cell>\n<outputs>\n0\n</outputs>\n'
        '<cell id="c2" index="3" type="code" execution_count="3">\nx = 2\nprint(x)\n</cell>\n<outputs>\n2\n</outputs>'
    )
    assert result.summary == "Read 2 cells of analysis.ipynb"
    reads = world.ctx.reads
    assert [reads.has_read(f"{world.path.resolve()}#{c}") for c in ("c0", "c1", "c2")] == [True, False, True]


def test_cell_ids_with_an_unknown_id_or_beside_cell_id_are_refused(world: World) -> None:
    tool = NotebookRead()
    with pytest.raises(ToolError) as unknown:
        asyncio.run(tool.run(tool.Input(cell_ids=["c0", "zz"]), world.ctx))
    assert unknown.value.code == "CELL_NOT_FOUND" and "'zz'" in unknown.value.message
    with pytest.raises(ToolError) as both:
        asyncio.run(tool.run(tool.Input(cell_ids=["c0"], cell_id="c1"), world.ctx))
    assert both.value.message == "pass cell_id (one cell) or cell_ids (several), not both"
    assert not world.ctx.reads.has_read(f"{world.path.resolve()}#c0")
