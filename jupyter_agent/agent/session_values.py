"""What a session hands out as values: its status for `%agent status` and what a run changed that the host
keeps (`%agent resume`'s runs are `resumed_runs`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..permissions.modes import Mode
from ..permissions.policy import Rule
from .events import Usage


@dataclass(frozen=True, kw_only=True)
class SessionStatus:
    """What `%agent status` shows."""

    model: str
    provider: str
    mode: str
    running: bool
    runs: int
    messages: int
    estimated_tokens: int
    context_window: int
    usage: Usage
    cost_usd: float
    tools: tuple[str, ...]
    #: The last run's cost (0 before the first run).
    last_run_cost_usd: float = 0.0
    session_budget_usd: float | None = None
    #: Where this session is being saved (None: not saved, or nothing written yet).
    saved_to: Path | None = None
    memory: tuple[Path, ...] = ()
    #: What the API last said it changed in a request (`input_transformations`: thinking blocks dropped).
    transformations: tuple[dict[str, object], ...] = ()
    #: `prefix_mismatch_behavior` this conversation sends (None: the API's default, "error").
    binding: str | None = None


@dataclass(frozen=True, kw_only=True)
class RunChanges:
    """What a run changed that outlives it, for the host to keep: the rules "Always allow" answers added, and
    the mode an approved plan (ExitPlanMode) switched to (None: unchanged)."""

    granted: tuple[Rule, ...] = ()
    mode: Mode | None = None
