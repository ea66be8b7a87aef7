"""Random JSON into every registered tool's dispatcher: always a ToolResult, never an exception."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dispatch_harness import ToolHarness
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agent.base.result import ToolResult
from jupyter_agent.builtin_tools.catalog import builtin_tools
from jupyter_agent.builtin_tools.kernel.main_thread import InlineMainThread
from jupyter_agent.builtin_tools.shell import bash_tool
from jupyter_agent.tools import Reject
from jupyter_agent.tools.context import ToolServices
from jupyter_agent.tools.dispatch import ApprovalRequest

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)


async def _refuse(request: ApprovalRequest) -> Reject:
    return Reject(message="fuzzing")


TOOLS = {tool.name: tool for tool in [*builtin_tools(), bash_tool()]}
NAMES = sorted(TOOLS)


def _arguments_for(name: str) -> st.SearchStrategy[Any]:
    """Mostly objects built from the tool's own field names (to get past the first check), sometimes anything."""
    fields = list(TOOLS[name].input_schema().get("properties", {}))
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
    services = ToolServices(main_thread=InlineMainThread())
    tools = ToolHarness(tmp_path, TOOLS.values(), approver=_refuse, namespace={}, services=services)
    outcome = tools.dispatch(name, arguments, call_id="fuzz")
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
