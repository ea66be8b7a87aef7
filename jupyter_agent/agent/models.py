"""What the agent knows about each model, in one table: context window, prices, and what its requests may carry.

Keyed by canonical name (`claude-sonnet-5-5`). Provider ids map to it: Bedrock's
`us.anthropic.claude-sonnet-4-5-20250929-v1:0`, Vertex's `claude-sonnet-4-5@20250929`, dated snapshots and
`-latest`; an entry's `aliases` are the other names of the same model (`claude-opus-4` for `claude-opus-4-0`).
A model not in the table has no known price (a capped run does not start, see `pricing`), a 200k window and
is assumed to take a thinking budget and nothing newer. `tests/unit/agent/test_model_facts.py` checks that every
entry is complete and that every model the SDK names is here.

Every request is built from a row's `accepts` (`thinking.py`, `turn.py`): the `thinking.type` values it takes,
its output ceiling, effort levels, and whether it checks thinking blocks' prefixes, takes mid-conversation system
messages, assistant prefill, sampling parameters or a forced `tool_choice` — from Anthropic's model, thinking,
effort and migration pages (checked 2026-11-28). Prices are USD per million tokens from Anthropic's pricing page
(checked 2026-11), 5-minute cache writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from ..tools.agent_types import ModelFamily
from .events import Usage

#: "adaptive": `{"type": "adaptive"}` (the model decides); "budget": only `{"type": "enabled", "budget_tokens"}`;
#: "none": no extended thinking.
ThinkingSupport = Literal["adaptive", "budget", "none"]
#: The values of the API's `thinking.type`.
ThinkingType = Literal["adaptive", "between_tools", "enabled", "disabled"]
#: The values of `output_config.effort`, least first.
Effort = Literal["low", "medium", "high", "xhigh", "max"]
EFFORTS: tuple[Effort, ...] = ("low", "medium", "high", "xhigh", "max")

#: The window assumed for a model the table does not know.
DEFAULT_CONTEXT_WINDOW = 200_000


@dataclass(frozen=True, kw_only=True)
class Accepts:
    """What a request to the model may carry; the API answers 400 to anything else."""

    #: The largest `max_tokens` (None: not known, nothing is capped).
    max_output: int | None
    thinking_types: frozenset[ThinkingType]
    #: A request without `thinking` thinks adaptively (the 5.x models); else it does not think.
    thinks_unasked: bool = False
    #: `output_config.effort` levels (empty: the model takes no effort), and the level when none is sent.
    efforts: tuple[Effort, ...] = ()
    default_effort: Effort | None = None
    #: Thinking blocks sent back are checked against their prefix (preserved thinking).
    preserved_thinking: bool = False
    #: `{"role": "system"}` messages in `messages`, and tool changes in them.
    system_messages: bool = False
    #: The text written between tool calls comes back as thinking blocks (shown with `display: "updates"`).
    progress_updates: bool = False
    #: A request may end with an assistant message.
    prefill: bool = True
    #: Non-default `temperature` / `top_p` / `top_k` (this package sends none).
    sampling: bool = True
    #: `tool_choice` `any` / `tool`.
    forced_tool_choice: bool = True

    @property
    def thinking(self) -> ThinkingSupport:
        if "adaptive" in self.thinking_types:
            return "adaptive"
        return "budget" if "enabled" in self.thinking_types else "none"


@dataclass(frozen=True, kw_only=True)
class Price:
    input: float
    output: float
    cache_write: float
    cache_read: float

    def cost(self, usage: Usage) -> float:
        return (
            usage.input * self.input
            + usage.output * self.output
            + usage.cache_write * self.cache_write
            + usage.cache_read * self.cache_read
        ) / 1_000_000


@dataclass(frozen=True, kw_only=True)
class ModelPrice:
    """A model's price; `long_prompt` applies to every token of a request whose prompt is over the threshold."""

    base: Price
    long_prompt: Price | None = None
    long_prompt_threshold: int = 0

    def cost(self, turn: Usage) -> float:
        if self.long_prompt is not None and turn.prompt_tokens > self.long_prompt_threshold:
            return self.long_prompt.cost(turn)
        return self.base.cost(turn)


@dataclass(frozen=True, kw_only=True)
class ModelFacts:
    context_window: int
    price: ModelPrice
    accepts: Accepts
    #: Other canonical names of the same model.
    aliases: tuple[str, ...] = ()

    @property
    def thinking(self) -> ThinkingSupport:
        return self.accepts.thinking


def _p(input: float, output: float, cache_write: float, cache_read: float) -> ModelPrice:
    return ModelPrice(base=Price(input=input, output=output, cache_write=cache_write, cache_read=cache_read))


_1M = 1_000_000
_200K = 200_000
_128K = 128_000
_64K = 64_000
_FABLE_5_2 = _p(8, 40, 10.00, 0.20)
_FABLE_5_1 = _p(10, 50, 12.50, 0.25)
_FABLE_5 = _p(10, 50, 12.50, 1.00)
_OPUS_45 = _p(5, 25, 6.25, 0.50)
_OPUS_4 = _p(15, 75, 18.75, 1.50)
_SONNET_4 = _p(3, 15, 3.75, 0.30)

# What requests may carry, by family (the thinking, effort, migration and mid-conversation pages).
_ALL_EFFORTS = EFFORTS
_NO_XHIGH: tuple[Effort, ...] = ("low", "medium", "high", "max")
#: Fable / Mythos 5.1 and 5.2, Opus 5.5: always thinking, prefix-checked, nothing forced or prefilled.
_ALWAYS_THINKING_CHECKED = Accepts(
    max_output=_128K,
    thinking_types=frozenset({"adaptive"}),
    thinks_unasked=True,
    efforts=_ALL_EFFORTS,
    default_effort="high",
    preserved_thinking=True,
    system_messages=True,
    progress_updates=True,
    prefill=False,
    sampling=False,
    forced_tool_choice=False,
)
#: Fable 5 / Mythos 5: always thinking, not prefix-checked, forced tool choice allowed.
_ALWAYS_THINKING = replace(_ALWAYS_THINKING_CHECKED, preserved_thinking=False, forced_tool_choice=True)
_SONNET_5_5 = replace(_ALWAYS_THINKING_CHECKED, thinking_types=frozenset({"adaptive", "between_tools"}))
_HAIKU_5_5 = Accepts(
    max_output=_128K,
    thinking_types=frozenset({"adaptive", "disabled"}),
    thinks_unasked=True,
    efforts=_ALL_EFFORTS,
    default_effort="medium",
    preserved_thinking=True,
    system_messages=True,
    prefill=False,
    sampling=False,
)
_OPUS_5 = Accepts(
    max_output=_128K,
    thinking_types=frozenset({"adaptive", "disabled"}),
    thinks_unasked=True,
    efforts=_ALL_EFFORTS,
    default_effort="high",
    system_messages=True,
    prefill=False,
    sampling=False,
)
_SONNET_5 = replace(_OPUS_5, system_messages=False)
#: Opus 4.7 / 4.8: adaptive only when asked.
_OPUS_4_7 = replace(_OPUS_5, thinks_unasked=False, system_messages=False)
#: Opus / Sonnet 4.6: adaptive, or a (deprecated) budget.
_FOUR_SIX = Accepts(
    max_output=_128K,
    thinking_types=frozenset({"adaptive", "enabled", "disabled"}),
    efforts=_NO_XHIGH,
    default_effort="high",
    prefill=False,
)
#: The 4.5 models and earlier: a budget or nothing.
_BUDGET_64K = Accepts(max_output=_64K, thinking_types=frozenset({"enabled", "disabled"}))
_BUDGET_32K = replace(_BUDGET_64K, max_output=32_000)

MODELS: dict[str, ModelFacts] = {
    # Each Mythos release has had its Fable's specifications and price.
    "claude-fable-5-2": ModelFacts(context_window=_1M, price=_FABLE_5_2, accepts=_ALWAYS_THINKING_CHECKED),
    "claude-mythos-5-2": ModelFacts(context_window=_1M, price=_FABLE_5_2, accepts=_ALWAYS_THINKING_CHECKED),
    "claude-fable-5-1": ModelFacts(context_window=_1M, price=_FABLE_5_1, accepts=_ALWAYS_THINKING_CHECKED),
    "claude-mythos-5-1": ModelFacts(context_window=_1M, price=_FABLE_5_1, accepts=_ALWAYS_THINKING_CHECKED),
    "claude-fable-5": ModelFacts(context_window=_1M, price=_FABLE_5, accepts=_ALWAYS_THINKING),
    "claude-mythos-5": ModelFacts(context_window=_1M, price=_FABLE_5, accepts=_ALWAYS_THINKING),
    "claude-opus-5-5": ModelFacts(
        context_window=_1M,
        price=_p(4, 20, 5.00, 0.20),
        accepts=replace(_ALWAYS_THINKING_CHECKED, default_effort="medium"),
    ),
    "claude-opus-5": ModelFacts(context_window=_1M, price=_OPUS_45, accepts=_OPUS_5),
    "claude-opus-4-8": ModelFacts(
        context_window=_1M, price=_OPUS_45, accepts=replace(_OPUS_4_7, system_messages=True)
    ),
    "claude-opus-4-7": ModelFacts(context_window=_1M, price=_OPUS_45, accepts=_OPUS_4_7),
    "claude-opus-4-6": ModelFacts(context_window=_1M, price=_OPUS_45, accepts=_FOUR_SIX),
    "claude-opus-4-5": ModelFacts(
        context_window=_200K,
        price=_OPUS_45,
        accepts=replace(_BUDGET_64K, efforts=("low", "medium", "high"), default_effort="high"),
    ),
    "claude-opus-4-1": ModelFacts(context_window=_200K, price=_OPUS_4, accepts=_BUDGET_32K),
    "claude-opus-4-0": ModelFacts(
        context_window=_200K, price=_OPUS_4, accepts=_BUDGET_32K, aliases=("claude-opus-4",)
    ),
    "claude-sonnet-5-5": ModelFacts(context_window=_1M, price=_p(2, 10, 2.50, 0.10), accepts=_SONNET_5_5),
    "claude-sonnet-5": ModelFacts(context_window=_1M, price=_p(2, 10, 2.50, 0.20), accepts=_SONNET_5),
    "claude-sonnet-4-6": ModelFacts(context_window=_1M, price=_SONNET_4, accepts=_FOUR_SIX),
    "claude-sonnet-4-5": ModelFacts(context_window=_200K, price=_SONNET_4, accepts=_BUDGET_64K),
    "claude-sonnet-4-0": ModelFacts(
        context_window=_200K, price=_SONNET_4, accepts=_BUDGET_64K, aliases=("claude-sonnet-4",)
    ),
    "claude-3-7-sonnet": ModelFacts(context_window=_200K, price=_SONNET_4, accepts=_BUDGET_64K),
    "claude-haiku-5-5": ModelFacts(
        context_window=_1M,
        price=ModelPrice(
            base=Price(input=0.10, output=0.50, cache_write=0.125, cache_read=0.01),
            long_prompt=Price(input=0.50, output=2.50, cache_write=0.625, cache_read=0.05),
            long_prompt_threshold=100_000,
        ),
        accepts=_HAIKU_5_5,
    ),
    "claude-haiku-4-5": ModelFacts(context_window=_200K, price=_p(1, 5, 1.25, 0.10), accepts=_BUDGET_64K),
    "claude-3-5-haiku": ModelFacts(
        context_window=_200K,
        price=_p(0.80, 4, 1.00, 0.08),
        accepts=Accepts(max_output=8_192, thinking_types=frozenset({"disabled"})),
    ),
}

#: What a model the table does not know is assumed to take (an Anthropic-compatible endpoint's own model).
UNKNOWN_MODEL = Accepts(max_output=None, thinking_types=frozenset({"enabled", "disabled"}))

#: Models the SDK names that are deliberately not in the table, and why (their runs are unpriced).
NOT_IN_TABLE: dict[str, str] = {
    "claude-mythos-preview": "an invitation-only preview without a published per-token price",
}

_BY_NAME: dict[str, ModelFacts] = {
    name: facts for canonical, facts in MODELS.items() for name in (canonical, *facts.aliases)
}

_PROVIDER_PREFIX = re.compile(r"^(?:.*[:/])?(?:[a-z]{2,6}\.)?anthropic\.")
_SUFFIXES = (
    re.compile(r"\[[^\]]*\]$"),  # claude-sonnet-5-5[1m]
    re.compile(r"-v\d+(?::\d+)?$"),  # Bedrock: -v1:0
    re.compile(r"@\d{8}$"),  # Vertex: @20250929
    re.compile(r"-\d{8}$"),  # dated snapshot: -20250929
    re.compile(r"-latest$"),
)


def canonical_model(model: str) -> str:
    """`us.anthropic.claude-sonnet-4-5-20250929-v1:0` → `claude-sonnet-4-5`; '' if it is not a Claude model."""
    name = _PROVIDER_PREFIX.sub("", model.strip().lower())
    for suffix in _SUFFIXES:
        name = suffix.sub("", name)
    return name if name.startswith("claude-") else ""


def model_facts(model: str) -> ModelFacts | None:
    """The table's entry for a model id of any provider; None for a model it does not know."""
    return _BY_NAME.get(canonical_model(model))


def context_window_for(model: str) -> int:
    facts = model_facts(model)
    return facts.context_window if facts is not None else DEFAULT_CONTEXT_WINDOW


def accepts(model: str) -> Accepts:
    """What a request to `model` may carry (the assumption for an unknown model when the table has no row)."""
    facts = model_facts(model)
    return facts.accepts if facts is not None else UNKNOWN_MODEL


def family_model(family: ModelFamily, session_model: str) -> str | None:
    """The newest model of `family` (the model table lists the newest first), or None when the session's model is
    named an endpoint's own way (Bedrock's `anthropic.…`, Vertex's `…@date`, a proxy's name): a family name
    would not reach the same endpoint's models there."""
    if not session_model.startswith("claude-") or "@" in session_model:
        return None
    return next(
        name for name in MODELS if name.startswith(f"claude-{family}-") or name.endswith(f"-{family}")
    )
