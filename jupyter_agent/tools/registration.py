"""Who hears about tools made with `@tool`: the kernel's agent subscribes here to register a cell's tools.

Kept free of pydantic so that loading the extension stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .core import AnyTool

Listener = Callable[["AnyTool"], None]
_LISTENERS: list[Listener] = []


def announce(made: AnyTool) -> None:
    """Tell every listener about a tool just made by `@tool`."""
    for listener in list(_LISTENERS):
        listener(made)


def on_tool_defined(listener: Listener) -> Callable[[], None]:
    """Subscribe; returns the function that unsubscribes."""
    _LISTENERS.append(listener)

    def unsubscribe() -> None:
        if listener in _LISTENERS:
            _LISTENERS.remove(listener)

    return unsubscribe
