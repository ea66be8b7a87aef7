"""The agent: the loop, the conversation, the model client, the system prompt, the worker thread.

Importing this package does not import `anthropic`; the SDK is loaded when the first run builds its client.
"""

from .config import DEFAULT_MODEL, AgentConfig, Provider
from .conversation import Conversation
from .events import (
    AgentEvent,
    Emit,
    ErrorEvent,
    Notice,
    RunFinished,
    RunStarted,
    TextDelta,
    TextDone,
    ToolFinished,
    ToolRunning,
    ToolStarted,
    Usage,
    UsageUpdate,
)
from .session import AgentSession, SessionStatus
from .worker import AgentWorker

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
    "RunFinished",
    "RunStarted",
    "SessionStatus",
    "TextDelta",
    "TextDone",
    "ToolFinished",
    "ToolRunning",
    "ToolStarted",
    "Usage",
    "UsageUpdate",
]
