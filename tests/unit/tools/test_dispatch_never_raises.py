"""Random JSON into every registered tool's dispatcher: always a ToolResult, never an exception."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agent.base.result import ToolResult
from jupyter_agent.tools import Dispatcher, PermissionPolicy, Reject, Sandbox, ToolCall, ToolContext, ToolPool
from jupyter_agent.tools.builtin import builtin_tools
from jupyter_agent.tools.context import ToolServices
from jupyter_agent.tools.dispatch import ApprovalRequest
from jupyter_agent.tools.kernel.main_thread import InlineMainThread
from jupyter_agent.tools.shell import bash_tool

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)


async def _refuse(request: ApprovalRequest) -> Reject:
    return Reject(message="fuzzing")


def _dispatcher() -> Dispatcher:
    pool = ToolPool()
    pool.set_source("builtin", [*builtin_tools(), bash_tool()])
    return Dispatcher(pool=pool, policy=PermissionPolicy(mode="default"), approver=_refuse)


DISPATCHER = _dispatcher()
NAMES = sorted(DISPATCHER.tools())


def _arguments_for(name: str) -> st.SearchStrategy[Any]:
    """Mostly objects built from the tool's own field names (to get past the first check), sometimes anything."""
    fields = list(DISPATCHER.tools()[name].input_schema().get("properties", {}))
    keyed = st.dictionaries(st.sampled_from(fields or ["x"]) | st.text(max_size=8), json_values, max_size=5)
    return keyed | json_values


@settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_json_to_any_tool_gives_a_result(tmp_path: Path, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(NAMES))
    arguments = data.draw(_arguments_for(name))
    ctx = ToolContext(
        sandbox=Sandbox.at(tmp_path), namespace={}, services=ToolServices(main_thread=InlineMainThread())
    )
    outcome = asyncio.run(DISPATCHER.dispatch(ToolCall(id="fuzz", name=name, input=arguments), ctx))
    assert isinstance(outcome.result, ToolResult)
    assert isinstance(outcome.result.content, str)
    if outcome.result.is_error:
        assert outcome.result.error_code is not None
    assert outcome.result.error_code != "EXECUTION_ERROR", (
        outcome.result.content
    )  # a crash inside a tool is a bug


def test_every_builtin_tool_is_covered() -> None:
    assert {"Read", "Write", "Edit", "Glob", "Grep", "NotebookRead", "NotebookEdit", "RunCell", "RunCode",
            "ListVariables", "Inspect", "Bash"} <= set(NAMES)  # fmt: skip
