"""Extended thinking as the API's `thinking` parameter, from the `thinking` setting.

- None: not sent (the model's default, no thinking);
- a budget in tokens: `{"type": "enabled", "budget_tokens": N}`; the API wants `max_tokens` above the
  budget, so a turn's `max_tokens` is raised to budget + max_tokens when it is not;
- "adaptive": `{"type": "adaptive"}` (the model decides how much to think) on models that accept it;
  others get a fixed budget of `ADAPTIVE_FALLBACK_BUDGET` instead, which `thinking_note` says.
The model table (`models.py`) says which models take "adaptive", and which take no thinking at all (the
setting is then not sent, with a note).
Thinking blocks come back signed and are kept in the conversation unchanged, as the API requires for
tool use with thinking.
"""

from __future__ import annotations

from typing import Any

from .config import ThinkingSetting
from .models import ThinkingSupport, model_facts

#: Budget used when "adaptive" is asked of a model that only takes a fixed budget.
ADAPTIVE_FALLBACK_BUDGET = 8_000


def _support(model: str) -> ThinkingSupport:
    """What the model takes; a model the table does not know is assumed to take a budget."""
    facts = model_facts(model)
    return facts.thinking if facts is not None else "budget"


def parse_thinking(value: str | int | None) -> ThinkingSetting:
    """'off' / '' / 0 → None, 'adaptive' → 'adaptive', '16000' → 16000; anything else is a ValueError."""
    if value is None:
        return None
    if isinstance(value, int):
        return value or None
    text = value.strip().lower()
    if text in ("", "off", "none", "0", "false"):
        return None
    if text == "adaptive":
        return "adaptive"
    try:
        budget = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise ValueError(
            f"thinking: {value!r} is not off, adaptive or a budget in tokens (e.g. 8000)"
        ) from None
    if budget < 1024:
        raise ValueError(f"thinking: a budget must be at least 1024 tokens, got {budget}")
    return budget


def thinking_param(setting: ThinkingSetting, model: str) -> dict[str, Any] | None:
    support = _support(model)
    if setting is None or support == "none":
        return None
    if setting == "adaptive":
        if support == "adaptive":
            return {"type": "adaptive"}
        return {"type": "enabled", "budget_tokens": ADAPTIVE_FALLBACK_BUDGET}
    return {"type": "enabled", "budget_tokens": setting}


def thinking_note(setting: ThinkingSetting, model: str) -> str | None:
    """A line for the UI when thinking was asked for and is not sent as asked."""
    if setting is None:
        return None
    support = _support(model)
    if support == "none":
        return f"'{model}' does not take extended thinking; running without it"
    if setting == "adaptive" and support != "adaptive":
        return (
            f"adaptive thinking is not known for '{model}'; thinking with a budget of "
            f"{ADAPTIVE_FALLBACK_BUDGET} tokens instead"
        )
    return None


def turn_max_tokens(max_tokens: int, thinking: dict[str, Any] | None) -> int:
    """`max_tokens` for a request: above the thinking budget, with `max_tokens` left for the answer."""
    if thinking is None or thinking.get("type") != "enabled":
        return max_tokens
    budget = int(thinking["budget_tokens"])
    return max_tokens if max_tokens > budget else budget + max_tokens
