"""What the agent knows about each model, in one table: context window, prices, kind of extended thinking.

Keyed by canonical name (`claude-sonnet-5-5`). Provider ids map to it: Bedrock's
`us.anthropic.claude-sonnet-4-5-20250929-v1:0`, Vertex's `claude-sonnet-4-5@20250929`, dated snapshots and
`-latest`; an entry's `aliases` are the other names of the same model (`claude-opus-4` for `claude-opus-4-0`).
A model not in the table has no known price (a capped run does not start, see `pricing`), a 200k window and
takes a fixed thinking budget. `tests/unit/agent/test_model_facts.py` checks that every entry is complete and that
every model the SDK names is here.

Prices are USD per million tokens from Anthropic's pricing page (checked 2026-11), 5-minute cache writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .events import Usage

#: "adaptive": `{"type": "adaptive"}` (the model decides); "budget": only `{"type": "enabled", "budget_tokens"}`;
#: "none": no extended thinking.
ThinkingSupport = Literal["adaptive", "budget", "none"]

#: The window assumed for a model the table does not know.
DEFAULT_CONTEXT_WINDOW = 200_000


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
    thinking: ThinkingSupport
    #: Other canonical names of the same model.
    aliases: tuple[str, ...] = ()


def _p(input: float, output: float, cache_write: float, cache_read: float) -> ModelPrice:
    return ModelPrice(base=Price(input=input, output=output, cache_write=cache_write, cache_read=cache_read))


_1M = 1_000_000
_200K = 200_000
_FABLE_5_2 = _p(8, 40, 10.00, 0.20)
_FABLE_5_1 = _p(10, 50, 12.50, 0.25)
_FABLE_5 = _p(10, 50, 12.50, 1.00)
_OPUS_45 = _p(5, 25, 6.25, 0.50)
_OPUS_4 = _p(15, 75, 18.75, 1.50)
_SONNET_4 = _p(3, 15, 3.75, 0.30)

MODELS: dict[str, ModelFacts] = {
    # Each Mythos release has had its Fable's specifications and price.
    "claude-fable-5-2": ModelFacts(context_window=_1M, price=_FABLE_5_2, thinking="adaptive"),
    "claude-mythos-5-2": ModelFacts(context_window=_1M, price=_FABLE_5_2, thinking="adaptive"),
    "claude-fable-5-1": ModelFacts(context_window=_1M, price=_FABLE_5_1, thinking="adaptive"),
    "claude-mythos-5-1": ModelFacts(context_window=_1M, price=_FABLE_5_1, thinking="adaptive"),
    "claude-fable-5": ModelFacts(context_window=_1M, price=_FABLE_5, thinking="adaptive"),
    "claude-mythos-5": ModelFacts(context_window=_1M, price=_FABLE_5, thinking="adaptive"),
    "claude-opus-5-5": ModelFacts(context_window=_1M, price=_p(4, 20, 5.00, 0.20), thinking="adaptive"),
    "claude-opus-5": ModelFacts(context_window=_1M, price=_OPUS_45, thinking="adaptive"),
    "claude-opus-4-8": ModelFacts(context_window=_1M, price=_OPUS_45, thinking="adaptive"),
    "claude-opus-4-7": ModelFacts(context_window=_1M, price=_OPUS_45, thinking="adaptive"),
    "claude-opus-4-6": ModelFacts(context_window=_1M, price=_OPUS_45, thinking="adaptive"),
    "claude-opus-4-5": ModelFacts(context_window=_200K, price=_OPUS_45, thinking="budget"),
    "claude-opus-4-1": ModelFacts(context_window=_200K, price=_OPUS_4, thinking="budget"),
    "claude-opus-4-0": ModelFacts(
        context_window=_200K, price=_OPUS_4, thinking="budget", aliases=("claude-opus-4",)
    ),
    "claude-sonnet-5-5": ModelFacts(context_window=_1M, price=_p(2, 10, 2.50, 0.10), thinking="adaptive"),
    "claude-sonnet-5": ModelFacts(context_window=_1M, price=_p(2, 10, 2.50, 0.20), thinking="adaptive"),
    "claude-sonnet-4-6": ModelFacts(context_window=_1M, price=_SONNET_4, thinking="adaptive"),
    "claude-sonnet-4-5": ModelFacts(context_window=_200K, price=_SONNET_4, thinking="budget"),
    "claude-sonnet-4-0": ModelFacts(
        context_window=_200K, price=_SONNET_4, thinking="budget", aliases=("claude-sonnet-4",)
    ),
    "claude-3-7-sonnet": ModelFacts(context_window=_200K, price=_SONNET_4, thinking="budget"),
    "claude-haiku-5-5": ModelFacts(
        context_window=_1M,
        price=ModelPrice(
            base=Price(input=0.10, output=0.50, cache_write=0.125, cache_read=0.01),
            long_prompt=Price(input=0.50, output=2.50, cache_write=0.625, cache_read=0.05),
            long_prompt_threshold=100_000,
        ),
        thinking="adaptive",
    ),
    "claude-haiku-4-5": ModelFacts(context_window=_200K, price=_p(1, 5, 1.25, 0.10), thinking="budget"),
    "claude-3-5-haiku": ModelFacts(context_window=_200K, price=_p(0.80, 4, 1.00, 0.08), thinking="none"),
}

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
