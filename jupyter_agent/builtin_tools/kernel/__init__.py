"""Tools only an in-kernel agent has: the user's live variables (ListVariables, Inspect), the last error
(Debug) and RunCode."""

from __future__ import annotations

from ...tools.core import AnyTool
from .debug import Debug, DebugInput
from .inspect import Inspect, InspectInput
from .main_thread import InlineMainThread, MainThread
from .runcode import RunCode, RunCodeInput
from .variables import ListVariables, ListVariablesInput


def kernel_tools() -> list[AnyTool]:
    """The kernel tools, ready for a ToolPool source; they need `ctx.namespace` (and `main_thread` for RunCode)."""
    return [ListVariables(), Inspect(), Debug(), RunCode()]


__all__ = [
    "Debug",
    "DebugInput",
    "InlineMainThread",
    "Inspect",
    "InspectInput",
    "ListVariables",
    "ListVariablesInput",
    "MainThread",
    "RunCode",
    "RunCodeInput",
    "kernel_tools",
]
