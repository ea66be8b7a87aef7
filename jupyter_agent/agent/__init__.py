"""The agent: the loop, the conversation, the model client, the system prompt, the worker thread.

Importing this package does not import `anthropic`; the SDK is loaded when the first run builds its client.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .config import DEFAULT_MODEL, AgentConfig, Provider
    from .conversation import Conversation
    from .events import (
        AgentEvent,
        Emit,
        ErrorEvent,
        Notice,
        RetryWait,
        RunFinished,
        RunStarted,
        TextDelta,
        TextDone,
        ToolFinished,
        ToolProgress,
        ToolRunning,
        ToolStarted,
        Usage,
        UsageUpdate,
    )
    from .session import AgentSession
    from .session_values import SessionStatus
    from .worker import AgentWorker

__getattr__ = lazy_exports(
    __name__,
    {
        "DEFAULT_MODEL": ".config",
        "AgentConfig": ".config",
        "Provider": ".config",
        "Conversation": ".conversation",
        "AgentEvent": ".events",
        "Emit": ".events",
        "ErrorEvent": ".events",
        "Notice": ".events",
        "RetryWait": ".events",
        "RunFinished": ".events",
        "RunStarted": ".events",
        "TextDelta": ".events",
        "TextDone": ".events",
        "ToolFinished": ".events",
        "ToolProgress": ".events",
        "ToolRunning": ".events",
        "ToolStarted": ".events",
        "Usage": ".events",
        "UsageUpdate": ".events",
        "AgentSession": ".session",
        "SessionStatus": ".session_values",
        "AgentWorker": ".worker",
    },
)

__all__ = [
    "DEFAULT_MODEL",
    "AgentConfig",
    "AgentEvent",
    "AgentSession",
    "AgentWorker",
    "Conversation",
    "Emit",
    "ErrorEvent",
    "Notice",
    "Provider",
    "RetryWait",
    "RunFinished",
    "RunStarted",
    "SessionStatus",
    "TextDelta",
    "TextDone",
    "ToolFinished",
    "ToolProgress",
    "ToolRunning",
    "ToolStarted",
    "Usage",
    "UsageUpdate",
]
