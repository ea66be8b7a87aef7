"""What `%agent status` shows of a session, read from its public state."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..permissions.policy import PermissionPolicy
from ..sessions.recorder import SessionRecorder
from ..tools.dispatch import Dispatcher
from ..tools.registry import ToolPool
from .config import AgentConfig
from .conversation import Conversation
from .events import Usage
from .memory import MemoryFile
from .session_values import SessionStatus


class ShownSession(Protocol):
    """What the status reads of a session (`session.AgentSession` is one, and asks for its own status)."""

    pool: ToolPool
    conversation: Conversation
    config: AgentConfig
    policy: PermissionPolicy
    recorder: SessionRecorder | None
    transformations: list[dict[str, object]]

    @property
    def running(self) -> bool: ...
    @property
    def run_count(self) -> int: ...
    @property
    def usage(self) -> Usage: ...
    @property
    def cost_usd(self) -> float: ...
    @property
    def last_run_cost(self) -> float: ...
    @property
    def memory(self) -> Sequence[MemoryFile]: ...
    def system_prompt(self) -> str: ...


def session_status(session: ShownSession) -> SessionStatus:
    """What `%agent status` shows of a session."""
    tools = Dispatcher(pool=session.pool).tools()
    prefix = session.conversation.prefix
    declared = prefix.tools if prefix is not None else tuple(t.to_param() for t in tools.values())
    system_chars = len(session.system_prompt()) + sum(len(str(t)) for t in declared)
    return SessionStatus(
        model=session.config.model,
        provider=session.config.provider,
        mode=session.policy.mode,
        running=session.running,
        runs=session.run_count,
        messages=len(session.conversation),
        estimated_tokens=session.conversation.estimated_prompt_tokens(system_chars),
        context_window=session.config.window,
        usage=session.usage,
        cost_usd=session.cost_usd,
        tools=tuple(tools),
        last_run_cost_usd=session.last_run_cost,
        session_budget_usd=session.config.session_budget_usd,
        saved_to=session.recorder.path if session.recorder is not None and session.recorder.started else None,
        memory=tuple(m.path for m in session.memory),
        transformations=tuple(session.transformations),
        binding=session.conversation.told.binding,
    )
