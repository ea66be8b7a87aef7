"""Thinking and effort as each model takes them: the request's `thinking`, `output_config.effort` and `max_tokens`,
built from the model table's row (`models.Accepts`) and the `thinking` / `effort` settings.

The `thinking` setting:
- None: the model's default. Models that think unasked (the 5.x models) are sent `{"type": "adaptive"}`
  with `display: "updates"` where the text written between tool calls comes back as thinking blocks, so that
  narration is shown (it would be blank at the default display); other models are sent nothing.
- "adaptive": adaptive thinking with its summary shown; a budget-only model gets `ADAPTIVE_FALLBACK_BUDGET`.
- a budget in tokens: `{"type": "enabled", "budget_tokens": N}` where the model takes budgets; on an
  adaptive-only model, adaptive thinking at the effort the budget maps to (`effort_for_budget`), said once.
- "off": `{"type": "disabled"}`, or `{"type": "between_tools"}` on a model that takes that instead.
`max_tokens` never exceeds the model's output ceiling, and stays above a budget. What a model cannot take at all
is a `ThinkingSettingError` before any request, naming the model and what it takes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..base.unset import unset_if_blank
from .models import EFFORTS, Accepts, Effort, accepts

#: None (the model's default), "off", "adaptive", or a budget in tokens (>= 1024).
ThinkingSetting = int | Literal["adaptive", "off"] | None

#: Budget used when "adaptive" is asked of a model that only takes a fixed budget.
ADAPTIVE_FALLBACK_BUDGET = 8_000
MIN_BUDGET = 1_024
#: The beta that makes the text between tool calls come back as thinking text (`display: "updates"`).
DISPLAY_UPDATES_BETA = "thinking-display-updates-2026-08-18"

#: Budgets up to each figure map to that effort on a model that takes effort but no budget.
_BUDGET_EFFORT: tuple[tuple[int, Effort], ...] = (
    (4_000, "low"),
    (12_000, "medium"),
    (32_000, "high"),
    (64_000, "xhigh"),
)


class ThinkingSettingError(ValueError):
    """A thinking or effort setting the model cannot take; the message names the model and what it takes."""


@dataclass(frozen=True, kw_only=True)
class ThinkingPlan:
    """What a request sends for thinking: the `thinking` field (None: left out), the effort (None: the model's
    default), `max_tokens`, the betas they need, and lines saying what was mapped (shown once per run)."""

    thinking: dict[str, Any] | None
    effort: Effort | None
    max_tokens: int
    betas: frozenset[str] = frozenset()
    notes: tuple[str, ...] = ()


def parse_thinking(value: str | int | None) -> ThinkingSetting:
    """'' / None → None (the model's default), 'off' / 'none' / 0 / 'false' → 'off', 'adaptive', '16000' → 16000;
    anything else is a ValueError."""
    if value is None:
        return None
    if isinstance(value, int):
        return value if value else "off"
    text = unset_if_blank(value)
    if text is None:
        return None
    text = text.lower()
    if text in ("off", "none", "0", "false"):
        return "off"
    if text == "adaptive":
        return "adaptive"
    try:
        budget = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise ValueError(
            f"thinking: {value!r} is not off, adaptive or a budget in tokens (e.g. 8000)"
        ) from None
    if budget < MIN_BUDGET:
        raise ValueError(f"thinking: a budget must be at least {MIN_BUDGET} tokens, got {budget}")
    return budget


def effort_for_budget(budget: int, efforts: tuple[Effort, ...]) -> Effort:
    """The effort a thinking budget stands for, among the levels the model takes."""
    wanted: Effort = "max"
    for limit, effort in _BUDGET_EFFORT:
        if budget <= limit:
            wanted = effort
            break
    rank = EFFORTS.index(wanted)
    below: list[Effort] = [e for e in efforts if EFFORTS.index(e) <= rank]
    return below[-1] if below else efforts[0]


def _types(row: Accepts) -> str:
    return ", ".join(f'"{t}"' for t in sorted(row.thinking_types)) or "none"


@dataclass(frozen=True, kw_only=True)
class _Choice:
    thinking: dict[str, Any] | None = None
    budget: int | None = None
    effort: Effort | None = None
    betas: frozenset[str] = frozenset()
    note: str | None = None


def plan_thinking(
    *, setting: ThinkingSetting, effort: Effort | None, model: str, max_tokens: int
) -> ThinkingPlan:
    """The thinking part of a request to `model`; `ThinkingSettingError` when the model cannot take the settings."""
    row = accepts(model)
    choice = _choose(setting, row, model, effort_given=effort is not None)
    thinking = choice.thinking
    if choice.budget is not None:
        thinking = {"type": "enabled", "budget_tokens": choice.budget}
    effort = _checked_effort(effort or choice.effort, row, model, thinking)
    return ThinkingPlan(
        thinking=thinking,
        effort=effort,
        max_tokens=_max_tokens(max_tokens, choice.budget, row, model),
        betas=choice.betas,
        notes=(choice.note,) if choice.note else (),
    )


def _choose(setting: ThinkingSetting, row: Accepts, model: str, *, effort_given: bool) -> _Choice:
    """The `thinking` field (or a budget) for the setting, as this model takes it."""
    types = row.thinking_types
    if setting is None:
        if row.thinks_unasked and row.progress_updates:
            return _Choice(
                thinking={"type": "adaptive", "display": "updates"}, betas=frozenset({DISPLAY_UPDATES_BETA})
            )
        return _Choice()
    if setting == "off":
        if "disabled" in types:
            return _Choice(thinking={"type": "disabled"})
        if "between_tools" in types:
            return _Choice(thinking={"type": "between_tools"})
        raise ThinkingSettingError(
            f"'{model}' always thinks: it takes thinking.type {_types(row)}, not off. Use --effort low "
            "(or %config AgentMagics.effort = 'low') for the least thinking"
        )
    if setting == "adaptive":
        if "adaptive" in types:
            return _Choice(thinking=_SHOWN)
        if "enabled" in types:
            return _Choice(
                budget=ADAPTIVE_FALLBACK_BUDGET,
                note=f"adaptive thinking is not known for '{model}'; thinking with a budget of "
                f"{ADAPTIVE_FALLBACK_BUDGET} tokens instead",
            )
        raise ThinkingSettingError(f"'{model}' takes no extended thinking (thinking.type {_types(row)})")
    if "enabled" in types:
        return _Choice(budget=setting)
    if "adaptive" in types and row.efforts:
        if effort_given:
            return _Choice(thinking=_SHOWN)
        mapped = effort_for_budget(setting, row.efforts)
        return _Choice(
            thinking=_SHOWN,
            effort=mapped,
            note=f"'{model}' takes no thinking budget: thinking adaptively at effort '{mapped}' (for a budget of "
            f"{setting} tokens; --effort sets it directly)",
        )
    raise ThinkingSettingError(
        f"'{model}' takes no thinking budget (thinking.type {_types(row)}); use --think adaptive or off"
    )


#: Adaptive thinking asked for by name: its summary is shown.
_SHOWN: dict[str, Any] = {"type": "adaptive", "display": "summarized"}


def _checked_effort(
    effort: Effort | None, row: Accepts, model: str, thinking: dict[str, Any] | None
) -> Effort | None:
    if effort is None:
        return None
    if not row.efforts:
        raise ThinkingSettingError(
            f"'{model}' takes no effort level; leave effort unset (--think sets a thinking budget there)"
        )
    if effort not in row.efforts:
        raise ThinkingSettingError(f"'{model}' takes effort {', '.join(row.efforts)}, not '{effort}'")
    if thinking is not None and thinking.get("type") == "between_tools" and effort in ("xhigh", "max"):
        raise ThinkingSettingError(
            f"'{model}' with thinking off takes effort 'high' or below, not '{effort}'; raise thinking "
            "(--think adaptive) or lower the effort"
        )
    return effort


def _max_tokens(max_tokens: int, budget: int | None, row: Accepts, model: str) -> int:
    """`max_tokens` within the model's ceiling, and above a budget with `max_tokens` left for the answer."""
    wanted = max_tokens if budget is None or max_tokens > budget else budget + max_tokens
    ceiling = row.max_output
    if ceiling is None or wanted <= ceiling:
        return wanted
    if budget is not None and budget >= ceiling:
        raise ThinkingSettingError(
            f"a thinking budget of {budget} tokens does not fit '{model}', whose answers are at most {ceiling} "
            f"tokens (thinking included); use a budget below {ceiling}"
        )
    return ceiling


def with_block_binding(thinking: dict[str, Any] | None, behavior: str) -> dict[str, Any]:
    """The `thinking` field with `block_binding.prefix_mismatch_behavior` set. It goes with adaptive or enabled
    thinking only, so a request without `thinking` (adaptive by default on these models) or with
    `between_tools` sends adaptive."""
    base = thinking if thinking is not None and thinking.get("type") in ("adaptive", "enabled") else None
    if base is None:
        base = {"type": "adaptive"}
    return {**base, "block_binding": {"prefix_mismatch_behavior": behavior}}
