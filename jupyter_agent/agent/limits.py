"""The limits a run stops at, checked before each request: max_turns, the run's and the session's budgets, and a
capped model without a known price (nothing can be counted against the cap, so nothing is sent)."""

from __future__ import annotations

from .config import AgentConfig
from .events import RunReason
from .pricing import unpriced_cap


def limit_reached(
    config: AgentConfig, *, turns: int, run_cost: float, session_cost: float
) -> tuple[RunReason, str] | None:
    """(how the run ends, the line that says why) when a limit is reached, else None."""
    unpriced = unpriced_cap(
        config.model, budget_usd=config.budget_usd, session_budget_usd=config.session_budget_usd
    )
    if unpriced is not None:
        return "budget", unpriced
    if turns >= config.max_turns:
        return "max_turns", f"stopped after {turns} model turns (max_turns); run again to let it continue"
    budget = config.budget_usd
    if budget is not None and run_cost >= budget:
        return "budget", f"stopped: this run cost ${run_cost:.4f}, reaching its budget of ${budget:.4f}"
    session_budget = config.session_budget_usd
    if session_budget is not None and session_cost >= session_budget:
        return "budget", (
            f"stopped: this session has cost ${session_cost:.4f}, reaching session_budget_usd "
            f"(${session_budget:.4f}); raise it (%config AgentMagics.session_budget_usd = …) to go on"
        )
    return None
