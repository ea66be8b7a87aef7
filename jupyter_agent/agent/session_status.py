"""What `%agent status` shows of a session, read from its public state."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..tools.dispatch import Dispatcher
from .session_values import SessionStatus

if TYPE_CHECKING:
    from .session import AgentSession


def session_status(session: AgentSession) -> SessionStatus:
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
