"""`@jupyter_agent.tool` in a cell of a kernel that loaded the extension: the function joins the agent's tools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..tools.registration import on_tool_defined

if TYPE_CHECKING:
    from ..tools.core import AnyTool

_UNSUBSCRIBE_KEY = "_jupyter_agent_unsubscribe"


def track_user_tools(shell: Any, magics: Any) -> None:
    """`@jupyter_agent.tool` in a cell registers the function with this kernel's agent."""
    untrack_user_tools(shell)

    def listener(made: AnyTool) -> None:
        magics.kernel_agent.register_user_tool(made)

    setattr(shell, _UNSUBSCRIBE_KEY, on_tool_defined(listener))


def untrack_user_tools(shell: Any) -> None:
    unsubscribe = getattr(shell, _UNSUBSCRIBE_KEY, None)
    if unsubscribe is not None:
        unsubscribe()
        delattr(shell, _UNSUBSCRIBE_KEY)
