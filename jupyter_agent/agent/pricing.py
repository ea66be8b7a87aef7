"""What a turn cost, from the model table's prices (`models.py`); and what a cap does when there is no price.

A model without a known price costs 0 with a note ("cost n/a"), so an uncapped run goes on. A capped run
(`--max-cost`, `budget_usd`, `session_budget_usd`) of such a model does not start: its cost could not be
measured, so the cap could not stop it (`unpriced_cap`). No guessed price is used instead.
"""

from __future__ import annotations

import os

from .config import DEFAULT_MODEL
from .events import Usage
from .models import ModelPrice, model_facts
from .web_search import search_cost


def price_for(model: str) -> ModelPrice | None:
    facts = model_facts(model)
    return facts.price if facts is not None else None


def turn_cost(model: str, turn: Usage) -> float:
    """Cost of one request in USD, its web searches included; 0 for a model not in the table (see
    `unknown_price_note`)."""
    price = price_for(model)
    return price.cost(turn) + search_cost(turn) if price is not None else 0.0


def unknown_price_note(model: str) -> str | None:
    """A line for the UI when the cost shown is not real; None when the model is priced."""
    if price_for(model) is not None:
        return None
    return f"no price is known for the model '{model}'; cost n/a (tokens are still counted)"


def unpriced_cap(model: str, *, budget_usd: float | None, session_budget_usd: float | None) -> str | None:
    """Why a capped run of a model without a known price must not start (None: priced, or no cap).

    The message names the model, the cap and both ways out.
    """
    if price_for(model) is not None or (budget_usd is None and session_budget_usd is None):
        return None
    if budget_usd is not None:
        cap = f"this run's budget of {_dollars(budget_usd)} (--max-cost or budget_usd)"
        lift = "run it without --max-cost and with %config AgentMagics.budget_usd = None"
    else:
        cap = f"session_budget_usd ({_dollars(session_budget_usd or 0)})"
        lift = "set %config AgentMagics.session_budget_usd = None to run it without a session cap"
    return (
        f"BUDGET_UNPRICED: no price is known for the model '{model}', so {cap} cannot be measured and "
        f"nothing was sent; {lift}, or choose a model with a known price (e.g. --model {DEFAULT_MODEL})"
    )


def _dollars(amount: float) -> str:
    """$0.000001, $0.01, $2: as many decimals as the amount needs, up to six."""
    return "$" + f"{amount:.6f}".rstrip("0").rstrip(".")


#: The offline demo sets this to the URL of its scripted model (see `jupyter_agent.testing.demo`).
OFFLINE_DEMO_ENV = "JUPYTER_AGENT_OFFLINE_DEMO"
OFFLINE_DEMO = "offline demo · no charge"


def offline_demo() -> bool:
    """Whether the model is the offline demo's scripted one: nothing is billed and the model name is not real."""
    demo = os.environ.get(OFFLINE_DEMO_ENV)
    return bool(demo) and os.environ.get("ANTHROPIC_BASE_URL") == demo
