"""What a turn cost: a table of per-million-token prices for known models; unknown models cost 0 (with a note).

Prices are USD per million tokens from Anthropic's pricing page (checked 2026-11), 5-minute cache writes.
Bedrock / Vertex ids (`us.anthropic.claude-…-v1:0`, `claude-…@20250929`) map to the same names.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from .events import Usage


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


def _p(input: float, output: float, cache_write: float, cache_read: float) -> ModelPrice:
    return ModelPrice(base=Price(input=input, output=output, cache_write=cache_write, cache_read=cache_read))


_OPUS_45 = _p(5, 25, 6.25, 0.50)
_OPUS_4 = _p(15, 75, 18.75, 1.50)
_SONNET_4 = _p(3, 15, 3.75, 0.30)

PRICES: dict[str, ModelPrice] = {
    "claude-fable-5-1": _p(10, 50, 12.50, 0.25),
    "claude-mythos-5-1": _p(10, 50, 12.50, 0.25),
    "claude-fable-5": _p(10, 50, 12.50, 1.00),
    "claude-mythos-5": _p(10, 50, 12.50, 1.00),
    "claude-opus-5-5": _p(4, 20, 5.00, 0.20),
    "claude-opus-5": _OPUS_45,
    "claude-opus-4-8": _OPUS_45,
    "claude-opus-4-7": _OPUS_45,
    "claude-opus-4-6": _OPUS_45,
    "claude-opus-4-5": _OPUS_45,
    "claude-opus-4-1": _OPUS_4,
    "claude-opus-4-0": _OPUS_4,
    "claude-opus-4": _OPUS_4,
    "claude-sonnet-5-5": _p(2, 10, 2.50, 0.10),
    "claude-sonnet-5": _p(2, 10, 2.50, 0.20),
    "claude-sonnet-4-6": _SONNET_4,
    "claude-sonnet-4-5": _SONNET_4,
    "claude-sonnet-4-0": _SONNET_4,
    "claude-sonnet-4": _SONNET_4,
    "claude-3-7-sonnet": _SONNET_4,
    "claude-haiku-5-5": ModelPrice(
        base=Price(input=0.10, output=0.50, cache_write=0.125, cache_read=0.01),
        long_prompt=Price(input=0.50, output=2.50, cache_write=0.625, cache_read=0.05),
        long_prompt_threshold=100_000,
    ),
    "claude-haiku-4-5": _p(1, 5, 1.25, 0.10),
    "claude-3-5-haiku": _p(0.80, 4, 1.00, 0.08),
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


def price_for(model: str) -> ModelPrice | None:
    return PRICES.get(canonical_model(model))


def turn_cost(model: str, turn: Usage) -> float:
    """Cost of one request in USD; 0 for a model not in the table (see `unknown_price_note`)."""
    price = price_for(model)
    return price.cost(turn) if price is not None else 0.0


def unknown_price_note(model: str) -> str | None:
    """A line for the UI when the cost shown is not real; None when the model is priced."""
    if price_for(model) is not None:
        return None
    return f"no price is known for the model '{model}'; cost n/a (tokens are still counted)"


#: The offline demo sets this to the URL of its scripted model (see `jupyter_agent.testing.demo`).
OFFLINE_DEMO_ENV = "JUPYTER_AGENT_OFFLINE_DEMO"
OFFLINE_DEMO = "offline demo · no charge"


def offline_demo() -> bool:
    """Whether the model is the offline demo's scripted one: nothing is billed and the model name is not real."""
    demo = os.environ.get(OFFLINE_DEMO_ENV)
    return bool(demo) and os.environ.get("ANTHROPIC_BASE_URL") == demo
