"""RunCell's contract as the model is told it (issue #42): an `%%agent` cell, the running one or any other, is
refused before the user is asked, saying why; nothing runs and nothing of the package's internals comes back."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from dispatch_harness import ToolHarness
from notebook_testkit import World

from jupyter_agent.builtin_tools.kernel import InlineMainThread
from jupyter_agent.builtin_tools.notebook import notebook_tools
from jupyter_agent.tools import Approval, ApprovalRequest, Approve
from jupyter_agent.tools.scope import RunScope


@pytest.fixture(params=["file", "live"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    world = World(tmp_path, request.param)
    world.ctx.namespace = {}
    world.ctx.services = dataclasses.replace(world.ctx.services, main_thread=InlineMainThread())
    world.type_into("c1", "%%agent\nsummarise df")
    world.type_into("c2", "%%agent\nplot it")
    world.ctx = world.ctx.for_run(RunScope(running_cell_id="c2"))
    yield world
    world.close()


@pytest.mark.parametrize(
    ("tool_input", "which"),
    [
        ({"cell_id": "c2"}, "cell 'c2' is the %%agent cell running you"),
        ({"cell_id": "c1"}, "cell 'c1' is an %%agent cell"),
        ({"cell_ids": ["c0", "c1"]}, "cell 'c1' is an %%agent cell"),
    ],
)
def test_an_agent_cell_is_refused_before_anyone_is_asked(
    world: World, tool_input: dict[str, object], which: str
) -> None:
    asked: list[ApprovalRequest] = []

    async def approver(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return Approve()

    done = ToolHarness(world.ctx, notebook_tools(), approver=approver).dispatch("RunCell", tool_input)
    assert done.result.content == (
        f"INVALID_ARGS: {which}; RunCell does not run %%agent cells (a run cannot start another). Nothing ran; "
        "run the code cells themselves, or RunCode"
    )
    assert asked == []
    assert world.ctx.namespace == {}  # c0 did not run either
