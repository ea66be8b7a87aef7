"""A run's events, with its ending saved to the session file before `RunFinished` reaches the cell."""

from __future__ import annotations

from ..sessions.recorder import SessionRecorder
from .events import AgentEvent, Emit, Notice, RunFinished


def saving(emit: Emit, recorder: SessionRecorder | None, *, run_id: int, model: str) -> Emit:
    """`emit`, with the run's ending saved first (and a failure to save said) before `RunFinished`."""
    if recorder is None:
        return emit

    def forward(event: AgentEvent) -> None:
        if isinstance(event, RunFinished):
            recorder.run_finished(
                run_id=run_id,
                model=model,
                reason=event.reason,
                turns=event.turns,
                cost_usd=event.cost_usd,
                usage=event.usage.as_dict(),
            )
            warning = recorder.take_warning()
            if warning:
                emit(Notice(level="warning", message=warning))
        emit(event)

    return forward
