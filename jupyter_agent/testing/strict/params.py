"""Rules on a request's parameters: `max_tokens`, `thinking`, effort, sampling and `tool_choice`, per the model's row.

Messages quote the real API where the docs (or, marked [OBS], real responses) give the wording; the others are
written in the API's style and marked "(our wording)". Sources: docs "Thinking", "Extended thinking", "Effort",
"Errors", the Sonnet 5.5 / Haiku 5.5 migration guides.
"""

from __future__ import annotations

from typing import Any

from ...base.json_values import is_object
from .binding import BINDING_BETA
from .models import ALL_EFFORTS, ServedModel
from .rejection import Rejection, invalid

DISPLAY_BETA = "thinking-display-updates-2026-08-18"
INTERLEAVED_BETA = "interleaved-thinking-2025-05-14"
_ADAPTIVE_HINT = 'Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'
_NOT_SUPPORTED = {
    "enabled": f'"thinking.type.enabled" is not supported for this model. {_ADAPTIVE_HINT}',
    "adaptive": "adaptive thinking is not supported on this model",
    "disabled": f'"thinking.type.disabled" is not supported for this model. {_ADAPTIVE_HINT}',
    "between_tools": '"thinking.type.between_tools" is not supported for this model.',
}
# The Sonnet 5.5 migration guide's wording, which real responses since October 2026 match.
_DISABLED_SONNET_5_5 = (
    'To turn thinking off on this model, send "thinking": {"type": "between_tools"} instead of {"type": "disabled"}. '
    "The model does not think before responding. The short updates it writes between tool calls come back as "
    "thinking blocks."
)
_BUDGET_DOCS = (
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
)
_TYPES = ("adaptive", "between_tools", "disabled", "enabled")


def thinking_type(body: dict[str, Any], row: ServedModel) -> str | None:
    """The thinking the request runs: its `thinking.type`, else the model's default (None: no thinking)."""
    thinking = body.get("thinking")
    if is_object(thinking):
        return str(thinking.get("type"))
    return row.default_thinking


def effort(body: dict[str, Any]) -> object:
    output = body.get("output_config")
    return output.get("effort") if is_object(output) else None


def check_max_tokens(body: dict[str, Any], row: ServedModel, model: str) -> Rejection | None:
    value = body.get("max_tokens")
    if value is None:
        return invalid("max_tokens: Field required")
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return invalid(
            "max_tokens: Input should be a valid integer greater than or equal to 0"
        )  # (our wording)
    if value > row.max_output:
        # [OBS] `max_tokens: 72000 > 64000, which is the maximum allowed number of output tokens for claude-haiku-4-5-…`
        return invalid(
            f"max_tokens: {value} > {row.max_output}, which is the maximum allowed number of output tokens for {model}"
        )
    return None


def check_thinking(body: dict[str, Any], row: ServedModel, betas: frozenset[str]) -> Rejection | None:
    thinking = body.get("thinking")
    if thinking is None:
        return None
    if not is_object(thinking) or thinking.get("type") not in _TYPES:
        kind = thinking.get("type") if is_object(thinking) else type(thinking).__name__
        return invalid(  # (our wording, pydantic's form)
            f"thinking: Input tag '{kind}' found using 'type' does not match any of the expected tags: "
            "'adaptive', 'between_tools', 'disabled', 'enabled'"
        )
    kind = str(thinking["type"])
    if kind not in row.thinking_types:
        if kind == "disabled" and "between_tools" in row.thinking_types:
            return invalid(_DISABLED_SONNET_5_5)
        return invalid(_NOT_SUPPORTED[kind])
    allowed = {
        "between_tools": set[str](),
        "disabled": set[str](),
        "adaptive": {"display", "block_binding"},
        "enabled": {"display", "block_binding", "budget_tokens"},
    }[kind]
    if BINDING_BETA not in betas:
        allowed.discard("block_binding")
    for key in thinking:
        if key != "type" and key not in allowed:
            return invalid(
                f"thinking.{kind}.{key}: Extra inputs are not permitted"
            )  # [DOC] for block_binding
    display = thinking.get("display")
    displays = ("summarized", "omitted", "updates") if DISPLAY_BETA in betas else ("summarized", "omitted")
    if display is not None and display not in displays:
        options = " or ".join(f"'{d}'" for d in displays)
        return invalid(f"thinking.{kind}.display: Input should be {options}")  # (our wording)
    return _check_budget(thinking, body, betas) if kind == "enabled" else None


def _check_budget(thinking: dict[str, Any], body: dict[str, Any], betas: frozenset[str]) -> Rejection | None:
    budget = thinking.get("budget_tokens")
    if budget is None:
        return invalid("thinking.enabled.budget_tokens: Field required")
    if not isinstance(budget, int) or budget < 1024:
        # [OBS] real responses; the docs say only "Minimum of 1,024 tokens. The API rejects smaller values."
        return invalid("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
    max_tokens = body.get("max_tokens")
    if isinstance(max_tokens, int) and budget >= max_tokens and INTERLEAVED_BETA not in betas:
        # [OBS] real responses; the docs: "Less than max_tokens", except with interleaved thinking.
        return invalid(
            f"`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at {_BUDGET_DOCS}"
        )
    return None


def check_effort(body: dict[str, Any], row: ServedModel) -> Rejection | None:
    level = effort(body)
    if level is None:
        return None
    if level not in ALL_EFFORTS:
        return invalid(
            "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'"
        )  # (ours)
    if not row.efforts:
        return invalid(
            "output_config.effort: this model does not support the effort parameter"
        )  # (our wording)
    if level not in row.efforts:
        options = ", ".join(f"'{e}'" for e in ("low", "medium", "high", "xhigh", "max") if e in row.efforts)
        return invalid(
            f"output_config.effort '{level}' is not supported by this model. Use one of {options}."
        )  # ours
    kind = thinking_type(body, row)
    if (
        row.thinking_off_needs_high_or_below
        and kind in ("between_tools", "disabled")
        and level in ("xhigh", "max")
    ):
        return invalid(  # [DOC] Sonnet 5.5's wording, used for Haiku 5.5 and Opus 5 too (theirs is not documented)
            f"output_config.effort '{level}' is not supported when thinking is disabled on this model. "
            "Use effort 'high' or below, or enable thinking."
        )
    return None


def check_sampling(body: dict[str, Any], row: ServedModel) -> Rejection | None:
    """Sampling parameters the model takes. The 5.x and Opus 4.7+ models take none but the defaults (docs
    "Thinking"); Haiku 5.5 has its own exact rule; older models restrict them only while thinking is on."""
    values = (body.get("temperature"), body.get("top_p"), body.get("top_k"))
    if row.sampling == "default_only":
        return _defaults_only(*values)
    if row.sampling == "haiku_5_5":
        return _haiku_5_5(*values)
    if thinking_type(body, row) in ("enabled", "adaptive"):
        return _with_thinking(*values)
    return None


def _defaults_only(temperature: Any, top_p: Any, top_k: Any) -> Rejection | None:
    if temperature is not None and temperature != 1:
        return invalid("`temperature` is deprecated for this model.")  # [OBS] Opus 4.8's response
    if top_p is not None and top_p not in (1, 0.99):
        return invalid("`top_p` is deprecated for this model.")  # (our wording, after the temperature one)
    if top_k is not None:
        return invalid("`top_k` is deprecated for this model.")  # (our wording)
    return None


def _haiku_5_5(temperature: Any, top_p: Any, top_k: Any) -> Rejection | None:
    """The Haiku 5.5 migration guide: temperature only 1, top_p only 0.99, no top_k, not both of the first two."""
    if temperature is not None and top_p is not None:
        return invalid("`temperature` and `top_p` cannot both be specified for this model.")  # (our wording)
    if temperature is not None and temperature != 1:
        return invalid("`temperature` must be 1 for this model.")  # (our wording)
    if top_p is not None and top_p != 0.99:
        return invalid("`top_p` must be 0.99 for this model.")  # (our wording)
    if top_k is not None:
        return invalid("`top_k` is not supported for this model.")  # (our wording)
    return None


def _with_thinking(temperature: Any, top_p: Any, top_k: Any) -> Rejection | None:
    """Older models while thinking is on: "temperature and top_k are incompatible", top_p 0.95 to 1."""
    if temperature is not None and temperature != 1:
        return invalid(
            "`temperature` may only be set to 1 when thinking is enabled."
        )  # (from real responses)
    if top_k is not None:
        return invalid("`top_k` is not supported when thinking is enabled.")  # (our wording)
    if top_p is not None and not 0.95 <= top_p <= 1:
        return invalid("`top_p` must be between 0.95 and 1 when thinking is enabled.")  # (our wording)
    return None


def check_tool_choice(body: dict[str, Any], row: ServedModel) -> Rejection | None:
    choice = body.get("tool_choice")
    if not is_object(choice) or choice.get("type") not in ("any", "tool"):
        return None
    if not row.forced_tool_choice:
        return invalid('tool_choice: type "tool" and "any" are not supported for this model.')  # [DOC]
    if thinking_type(body, row) == "enabled":
        return invalid(
            "Thinking may not be enabled when tool_choice forces tool use."
        )  # (from real responses)
    return None
