"""RunCell on both backends: the cell's source runs, its outputs go back into the cell and to the model.

Code runs through `InlineMainThread` (a helper thread standing in for the kernel's main thread, which a
unit test does not have); tests/kernel runs it on a real kernel's main thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from notebook_testkit import World, assert_valid

from jupyter_agent.tools import ToolError, ToolResult
from jupyter_agent.tools.kernel import InlineMainThread
from jupyter_agent.tools.notebook import RunCell


@pytest.fixture(params=["file", "live"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    world = World(tmp_path, request.param)
    world.ctx.namespace = {}
    world.ctx.services.main_thread = InlineMainThread()
    yield world
    world.close()


def run_cell(world: World, cell_id: str) -> ToolResult:
    tool = RunCell()
    return asyncio.run(tool.run(tool.Input(cell_id=cell_id), world.ctx))


def cell_json(world: World, cell_id: str) -> dict[str, Any]:
    if world.page is not None:
        return next(c for c in world.page.cells if c["id"] == cell_id)
    return next(c for c in nbformat.read(world.path, as_version=4).cells if c.id == cell_id)


def test_the_cell_runs_in_the_users_namespace_and_its_outputs_go_into_the_cell(world: World) -> None:
    result = run_cell(world, "c1")
    assert world.ctx.namespace is not None and world.ctx.namespace["x"] == 1
    assert not result.is_error
    where = "its outputs are now in the notebook"
    assert result.content.startswith(f"1\n[cell 'c1' of analysis.ipynb ran as [ ]; {where}]")
    assert result.summary == "Ran cell c1: 1 line of output"
    outputs = cell_json(world, "c1")["outputs"]
    assert outputs[0]["output_type"] == "stream" and "".join(outputs[0]["text"]) == "1\n"
    if world.page is None:
        assert_valid(world.path)


def test_an_error_is_shown_to_the_model_and_kept_in_the_cell(world: World) -> None:
    world.type_into("c2", "print('before')\n1 / 0")
    result = run_cell(world, "c2")
    assert result.error_code == "EXECUTION_ERROR"
    assert result.content.startswith("EXECUTION_ERROR: the code raised ZeroDivisionError: division by zero")
    outputs = cell_json(world, "c2")["outputs"]
    assert [o["output_type"] for o in outputs] == ["stream", "error"]
    assert outputs[1]["ename"] == "ZeroDivisionError" and outputs[1]["evalue"] == "division by zero"
    if world.page is None:
        assert_valid(world.path)


def test_source_the_model_has_not_read_is_shown_with_the_run(world: World) -> None:
    result = run_cell(world, "c0")
    assert result.content == (
        "0\n[cell 'c0' of analysis.ipynb ran as [ ]; its outputs are now in the notebook]\n"
        "The source that ran, which you had not read as it is now:\nx = 0\nprint(x)"
    )
    again = run_cell(world, "c0")
    assert again.content == "0\n[cell 'c0' of analysis.ipynb ran as [ ]; its outputs are now in the notebook]"


def test_only_code_cells_run(world: World) -> None:
    with pytest.raises(ToolError) as caught:
        run_cell(world, "md")
    assert caught.value.message == (
        "cell 'md' is a markdown cell; only code cells run (RunCode runs code that is not in a cell)"
    )


def test_without_the_kernels_main_thread_it_is_not_available(world: World) -> None:
    world.ctx.services.main_thread = None
    with pytest.raises(ToolError) as caught:
        run_cell(world, "c0")
    assert caught.value.code == "NOT_AVAILABLE"
