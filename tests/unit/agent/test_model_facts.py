"""The model table: one entry per model with every fact filled in, every model the SDK names accounted for,
and each provider's id of a model finding the same entry."""

from __future__ import annotations

import dataclasses
from typing import get_args

import pytest
from anthropic.types import Model

from jupyter_agent.agent.models import (
    DEFAULT_CONTEXT_WINDOW,
    MODELS,
    NOT_IN_TABLE,
    ModelFacts,
    Price,
    ThinkingSupport,
    canonical_model,
    context_window_for,
    model_facts,
)

SDK_MODELS = get_args(get_args(Model)[0])


def _prices(facts: ModelFacts) -> list[Price]:
    long_prompt = facts.price.long_prompt
    return [facts.price.base] if long_prompt is None else [facts.price.base, long_prompt]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_entry_is_complete_and_plausible(name: str) -> None:
    facts = MODELS[name]
    assert canonical_model(name) == name, "key the table by canonical name"
    assert facts.context_window in (200_000, 1_000_000)
    assert facts.thinking in get_args(ThinkingSupport)
    for price in _prices(facts):
        fields = {f.name: getattr(price, f.name) for f in dataclasses.fields(price)}
        assert all(value > 0 for value in fields.values()), fields
        # cache reads are the cheapest input, cache writes cost more than plain input, output the most
        assert price.cache_read < price.input < price.cache_write < price.output, fields
    if facts.price.long_prompt is not None:
        assert 0 < facts.price.long_prompt_threshold < facts.context_window


def test_every_model_the_sdk_names_is_in_the_table_or_left_out_with_a_reason() -> None:
    missing = sorted(
        {canonical_model(m) for m in SDK_MODELS}
        - set(MODELS)
        - {a for f in MODELS.values() for a in f.aliases}
    )
    assert missing == sorted(NOT_IN_TABLE), "add the new model to MODELS (or to NOT_IN_TABLE, saying why)"
    assert all(model_facts(m) is not None for m in SDK_MODELS if canonical_model(m) not in NOT_IN_TABLE)


def test_no_alias_is_also_an_entry_or_another_entrys_alias() -> None:
    aliases = [a for facts in MODELS.values() for a in facts.aliases]
    assert len(aliases) == len(set(aliases))
    assert not set(aliases) & set(MODELS)


@pytest.mark.parametrize("name", sorted({n for c, f in MODELS.items() for n in (c, *f.aliases)}))
def test_bedrock_vertex_and_dated_ids_find_the_same_entry(name: str) -> None:
    facts = model_facts(name)
    assert facts is not None
    for provider_id in (
        f"anthropic.{name}-20260101-v1:0",
        f"us.anthropic.{name}-20260101-v1:0",
        f"arn:aws:bedrock:us-east-1::foundation-model/anthropic.{name}-v2:0",
        f"{name}@20260101",
        f"{name}-20260101",
        f"{name}-latest",
        f"{name}[1m]",
    ):
        assert model_facts(provider_id) is facts, provider_id


def test_an_alias_has_its_models_facts() -> None:
    aliases = {alias: name for name, facts in MODELS.items() for alias in facts.aliases}
    assert aliases
    for alias, name in aliases.items():
        assert model_facts(alias) is MODELS[name]
        assert model_facts(f"{alias}-20250514") is MODELS[name]  # a dated snapshot of the alias


def test_a_model_the_table_does_not_know_gets_the_default_window_and_no_facts() -> None:
    assert model_facts("qwen3-coder") is None
    assert model_facts("claude-nonesuch-9") is None  # a Claude-style id the table lacks
    assert context_window_for("qwen3-coder") == DEFAULT_CONTEXT_WINDOW
    assert context_window_for("claude-sonnet-5-5") == 1_000_000
