"""RunCell on both backends: the cell's source runs, its outputs go back into the cell and to the model.

Code runs through `InlineMainThread` (a helper thread standing in for the kernel's main thread, which a
unit test does not have); tests/kernel runs it on a real kernel's main thread.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from notebook_testkit import World, assert_valid

from jupyter_agent.builtin_tools.kernel import InlineMainThread
from jupyter_agent.builtin_tools.notebook import RunCell
from jupyter_agent.tools import ToolError, ToolResult


@pytest.fixture(params=["file", "live"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    world = World(tmp_path, request.param)
    world.ctx.namespace = {}
    world.ctx.services = dataclasses.replace(world.ctx.services, main_thread=InlineMainThread())
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
        "The source that ran, which you had not read as it is now:\nx = 0\nprint(x)\n"
        "[kernel variables this code changed — %agent undo removes (new): x]"
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
    world.ctx.services = dataclasses.replace(world.ctx.services, main_thread=None)
    with pytest.raises(ToolError) as caught:
        run_cell(world, "c0")
    assert caught.value.code == "NOT_AVAILABLE"


def run_cells(world: World, **params: Any) -> ToolResult:
    tool = RunCell()
    return asyncio.run(tool.run(tool.Input(**params), world.ctx))


def refusal(world: World, **params: Any) -> str:
    with pytest.raises(ToolError) as caught:
        run_cells(world, **params)
    assert caught.value.code == "INVALID_ARGS"
    return caught.value.message


def test_several_cells_run_in_notebook_order_and_each_gets_its_outputs(world: World) -> None:
    world.type_into("c0", "order = ['c0']\nprint('first')")
    world.type_into("c2", "order.append('c2')\nprint('second')")
    result = run_cells(world, cell_ids=["c0", "c2"])
    assert not result.is_error
    assert world.ctx.namespace is not None and world.ctx.namespace["order"] == ["c0", "c2"]
    assert result.content.startswith(
        "ran c0 (1 line of output)\nran c2 (1 line of output)\n\n--- cell c0 ---\nfirst"
    )
    assert result.data["ran"] == ["c0", "c2"] and result.data["not_run"] == []
    assert result.summary == "Ran 2 of 2 cells"
    assert "".join(cell_json(world, "c2")["outputs"][0]["text"]) == "second\n"
    assert "".join(cell_json(world, "c1")["outputs"][0]["text"]) == "1\n"  # not asked for: untouched


def test_a_batch_stops_at_the_first_error_and_says_what_did_not_run(world: World) -> None:
    world.type_into("c0", "seen = ['c0']")
    world.type_into("c1", "seen.append('c1')\n{}['March']")
    world.type_into("c2", "seen.append('c2')")
    result = run_cells(world, cell_ids=["c0", "c1", "c2"])
    assert result.is_error and result.error_code == "EXECUTION_ERROR"
    assert world.ctx.namespace is not None and world.ctx.namespace["seen"] == ["c0", "c1"]
    lines = result.content.splitlines()
    assert lines[:3] == [
        "EXECUTION_ERROR: ran c0 (no output)",
        "failed c1: KeyError: 'March'",
        "not run: c2",
    ]
    failing = result.content.split("--- cell c1 ---\n")[1]
    assert failing.startswith("EXECUTION_ERROR: the code raised KeyError: 'March'\nTraceback (most recent")
    assert result.data["failed"] == ["c1"] and result.data["not_run"] == ["c2"]
    assert "".join(cell_json(world, "c2")["outputs"][0]["text"]) == "2\n"  # its old output stays


def test_cell_ids_out_of_notebook_order_are_refused_with_the_order_they_stand_in(world: World) -> None:
    assert refusal(world, cell_ids=["c2", "c0", "c1"]) == (
        "cell_ids must be in notebook order; in analysis.ipynb they stand in this order: c0, c1, c2"
    )
    assert world.ctx.namespace == {}  # nothing ran


def test_cell_id_and_cell_ids_are_exclusive_and_one_is_needed(world: World) -> None:
    both = "give exactly one of cell_id (one cell) or cell_ids (several cells, in notebook order)"
    assert refusal(world, cell_id="c0", cell_ids=["c1"]) == both
    assert refusal(world) == both
    assert "lists 'c0' more than once" in refusal(world, cell_ids=["c0", "c0"])
    assert "cell_ids is empty" in refusal(world, cell_ids=[])


def test_a_markdown_cell_in_a_batch_is_refused_before_anything_runs(world: World) -> None:
    world.type_into("c0", "ran_first = True")
    message = refusal(world, cell_ids=["c0", "md"])
    assert message.startswith("cell 'md' is a markdown cell; only code cells run") and message.endswith(
        "; nothing ran"
    )
    assert world.ctx.namespace == {}


def test_a_batch_shares_the_output_limit_but_never_below_two_thousand_characters() -> None:
    from jupyter_agent.builtin_tools.notebook.run_batch import cell_share

    assert cell_share(20_000, 1) == 20_000
    assert cell_share(20_000, 4) == 5_000
    assert cell_share(20_000, 40) == 2_000


def test_the_approval_preview_shows_each_cells_id_and_source(world: World) -> None:
    tool = RunCell()
    preview = asyncio.run(tool.preview(tool.Input(cell_ids=["c0", "c1"]), world.ctx))
    assert preview.text == "# cell c0\nx = 0\nprint(x)\n\n# cell c1\nx = 1\nprint(x)"
    assert tool.title(tool.Input(cell_ids=["c0", "c1"]), world.ctx) == "RunCell c0, c1"


def test_a_batchs_output_is_capped_over_the_batch_not_per_cell(world: World) -> None:
    import dataclasses

    from jupyter_agent.base.sandbox import Limits

    world.ctx.sandbox = dataclasses.replace(world.ctx.sandbox, limits=Limits(max_code_output_chars=20_000))
    for cell_id in ("c0", "c1"):
        world.type_into(cell_id, f"print('{cell_id}' * 15_000)")
    one = run_cells(world, cell_id="c0")
    both = run_cells(world, cell_ids=["c0", "c1"])
    assert (
        14_000 < len(one.content) <= 21_000
    )  # one cell: the whole limit (a quarter kept for the unread note)
    assert one.content.count("output cut here") == 1  # one cut layer
    assert len(both.content) <= 22_000  # two cells: 10,000 each (plus the status lines)
    assert both.content.count("c1c1c1c1") > 0 and both.content.count("c0c0c0c0") > 0


def test_range_below_runs_the_cell_and_the_code_cells_below_it_in_order(world: World) -> None:
    world.type_into("c0", "order = ['c0']")
    world.type_into("c1", "order = ['c1']")
    world.type_into("c2", "order.append('c2')")
    result = run_cells(world, cell_id="c1", range="below")
    assert not result.is_error, result.content
    assert world.ctx.namespace is not None and world.ctx.namespace["order"] == ["c1", "c2"]
    assert result.data["cell_ids"] == ["c1", "c2"]  # c0 is above; md is not code
    assert "".join(cell_json(world, "c0")["outputs"][0]["text"]) == "0\n"  # untouched


def test_range_above_runs_the_code_cells_above_the_cell_but_no_agent_or_empty_cell(world: World) -> None:
    world.type_into("c0", "order = ['c0']")
    world.type_into("c1", "%%agent\nlook at this")
    world.type_into("c2", "order.append('c2')")
    result = run_cells(world, cell_id="md", range="above")
    assert not result.is_error, result.content
    assert world.ctx.namespace is not None and world.ctx.namespace["order"] == ["c0", "c2"]
    assert result.data["cell_ids"] == ["c0", "c2"]
    assert "".join(cell_json(world, "c1")["outputs"][0]["text"]) == "1\n"  # the %%agent cell did not run
    world.type_into("c2", "  \n")
    assert run_cells(world, cell_id="md", range="above").data["cell_ids"] == ["c0"]  # nor an empty one


def test_range_stops_at_the_first_error_as_a_batch_does(world: World) -> None:
    world.type_into("c0", "seen = ['c0']")
    world.type_into("c1", "seen.append('c1')\n1 / 0")
    world.type_into("c2", "seen.append('c2')")
    result = run_cells(world, cell_id="c0", range="below")
    assert result.error_code == "EXECUTION_ERROR"
    assert world.ctx.namespace is not None and world.ctx.namespace["seen"] == ["c0", "c1"]
    assert result.data["failed"] == ["c1"] and result.data["not_run"] == ["c2"]


def test_range_needs_cell_id_alone_and_a_code_cell_to_run(world: World) -> None:
    assert refusal(world, cell_ids=["c0"], range="below") == (
        "range 'below' goes with cell_id (the cell it is counted from), not with cell_ids"
    )
    assert refusal(world, range="above") == (
        "range 'above' goes with cell_id (the cell it is counted from), not with cell_ids"
    )
    assert refusal(world, cell_id="c0", range="above") == (
        "there is no code cell to run above cell 'c0' in analysis.ipynb (%%agent cells are not run); nothing ran"
    )
    assert world.ctx.namespace == {}


def test_a_range_is_one_approval_that_shows_every_cell_it_will_run(world: World) -> None:
    tool = RunCell()
    params = tool.Input(cell_id="c1", range="below")
    preview = asyncio.run(tool.preview(params, world.ctx))
    assert preview.text == "# cell c1\nx = 1\nprint(x)\n\n# cell c2\nx = 2\nprint(x)"
    assert tool.title(params, world.ctx) == "RunCell c1 and below"
    assert tool.title(tool.Input(cell_id="c1", range="above"), world.ctx) == "RunCell above c1"


def test_the_approval_of_a_run_names_its_cells_and_what_it_may_change_in_the_kernel(world: World) -> None:
    """The page draws the cells (live only); the kernel journal's note says which variables the run may change."""
    assert world.ctx.namespace is not None
    world.ctx.namespace["x"] = [1]
    tool = RunCell()
    one = asyncio.run(tool.preview(tool.Input(cell_id="c1"), world.ctx))
    several = asyncio.run(tool.preview(tool.Input(cell_id="c1", range="below"), world.ctx))
    note = "Kernel variables: %agent undo can restore x."
    assert (one.note, several.note) == (note, note)
    live = world.page is not None
    assert [c.cell_id for c in one.cells] == (["c1"] if live else [])
    assert [c.cell_id for c in several.cells] == (["c1", "c2"] if live else [])
