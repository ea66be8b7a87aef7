"""The models the strict scripted server serves, and what each one accepts, from Anthropic's documentation.

This table is the server's own, written from the docs (pages "Thinking", "Extended thinking", "Effort", "Preserved
thinking", the Sonnet 5.5 and Haiku 5.5 migration guides, "Prompt caching", the models overview) and the `anthropic`
SDK's list of models and end-of-life dates. It is deliberately independent of the package's
`jupyter_agent/agent/models.py`: a stand-in that read the package's table would check the package against itself.

An id not in the table gets the API's 404 `not_found_error` (`model: <id>`). Models retired before today
(2026-11) are left out for that reason: `claude-mythos-preview` (end of life June 30th, 2026), Claude 4.1 / 4.0 and
the Claude 3 models, which the SDK no longer names. Tests and users add rows with `ScriptedServer(models=[...])`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeAlias

ThinkingType: TypeAlias = Literal["adaptive", "enabled", "disabled", "between_tools"]
Effort: TypeAlias = Literal["low", "medium", "high", "xhigh", "max"]
PrefixMismatch: TypeAlias = Literal["error", "drop_block"]
Display: TypeAlias = Literal["summarized", "omitted"]
#: How the model takes `temperature` / `top_p` / `top_k`: "any" (the classic ranges; with thinking on, only `top_p`
#: 0.95–1), "default_only" (a non-default value is a 400 on every request), "haiku_5_5" (its own exact rule).
Sampling: TypeAlias = Literal["any", "default_only", "haiku_5_5"]

ALL_EFFORTS: frozenset[Effort] = frozenset({"low", "medium", "high", "xhigh", "max"})
_TO_HIGH: frozenset[Effort] = frozenset({"low", "medium", "high"})
_TO_MAX: frozenset[Effort] = frozenset({"low", "medium", "high", "max"})


@dataclass(frozen=True, kw_only=True)
class ServedModel:
    """One row: a model id the server answers for and the request rules it enforces for it."""

    id: str
    #: Other ids of the same model (dated snapshots); requests may name any of them.
    aliases: tuple[str, ...] = ()
    context_window: int = 1_000_000
    #: The largest `max_tokens` the model accepts.
    max_output: int = 128_000
    #: The `thinking.type` values a request may send.
    thinking_types: frozenset[ThinkingType] = frozenset({"adaptive"})
    #: What a request without `thinking` runs: "adaptive", or None (no thinking).
    default_thinking: Literal["adaptive"] | None = "adaptive"
    #: `thinking.display` when the request does not set it ("omitted": thinking text comes back empty).
    default_display: Display = "omitted"
    #: `between_tools` / `disabled` work only at `high` effort or below (Sonnet 5.5, Haiku 5.5, Opus 5).
    thinking_off_needs_high_or_below: bool = False
    #: Runs the prefix check on thinking blocks sent back (preserved thinking).
    preserved_thinking: bool = False
    #: What a failed prefix check does when the request sets no `prefix_mismatch_behavior`. The server stands for an
    #: account created after 2026-08-31, where the docs say the check is enforced ("error") on these models.
    prefix_mismatch_default: PrefixMismatch = "error"
    #: Thinking blocks it produces work only under the API key (account) that produced them.
    account_bound: bool = False
    #: The model ids whose thinking blocks this model reads; others are dropped without an error. Its own id is
    #: always readable.
    reads: frozenset[str] = frozenset()
    #: Accepts `{"role": "system"}` messages with content inside `messages` (docs "Mid-conversation system messages").
    system_messages: bool = False
    #: Accepts an effort-only system message (`{"role": "system", "content": [], "output_config": {...}}`).
    per_message_effort: bool = False
    #: Accepts a request whose last message is an assistant turn (prefill).
    prefill: bool = False
    sampling: Sampling = "default_only"
    #: Accepts `tool_choice` `{"type": "any"}` / `{"type": "tool"}` (with manual thinking no model does).
    forced_tool_choice: bool = True
    #: Accepted `output_config.effort` values; empty: the model has no effort parameter.
    efforts: frozenset[Effort] = ALL_EFFORTS
    #: Shortest prefix, in tokens, that a cache breakpoint can write (docs "Prompt caching"; the 5.1 / 5.2 / 5.5
    #: models are not in the docs' table: 512 assumed, as for Sonnet 5.5 and the other 5.x models).
    min_cacheable_tokens: int = 512
    #: End of life from the SDK's deprecation list, for the record (the model is still served until then).
    end_of_life: str | None = None
    notes: tuple[str, ...] = field(default=(), compare=False)

    def can_read(self, producer: str) -> bool:
        """True when this model reads thinking blocks produced by model id `producer`."""
        return producer == self.id or producer in self.reads


# Which blocks each model reads (docs "Preserved thinking", "Switching models mid-conversation"). The 4.x models and
# Sonnet 5 are "earlier models" for every reader below.
_CLAUDE_4 = frozenset(
    {"claude-opus-4-8", "claude-opus-4-7", "claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-5"}
    | {"claude-sonnet-4-5", "claude-haiku-4-5"}
)
_LEGACY = _CLAUDE_4 | {"claude-sonnet-5", "claude-opus-5", "claude-fable-5", "claude-mythos-5"}
_FABLE_5_1_READS = _LEGACY | {"claude-fable-5-1", "claude-mythos-5-1", "claude-opus-5-5"}


_PRESERVED = ServedModel(
    id="", preserved_thinking=True, system_messages=True, per_message_effort=True, forced_tool_choice=False
)


def _preserved(model_id: str, reads: frozenset[str], **changes: Any) -> ServedModel:
    """A model with preserved thinking: adaptive only, prefix check, system messages, no prefill or sampling."""
    return replace(_PRESERVED, id=model_id, reads=reads, **changes)


def _legacy(model_id: str, **changes: Any) -> ServedModel:
    """A model without the prefix check, reading the blocks of every other such model."""
    return ServedModel(id=model_id, reads=_LEGACY, **changes)


_ROWS: tuple[ServedModel, ...] = (
    # Fable / Mythos 5.2: the prefix check applies to every account (docs "What's new in Claude Fable 5.2"). What
    # they read is not fully documented; assumed: each other and everything Fable 5.1 reads (inferred).
    _preserved("claude-fable-5-2", _FABLE_5_1_READS | {"claude-fable-5-2", "claude-mythos-5-2"}),
    _preserved("claude-mythos-5-2", _FABLE_5_1_READS | {"claude-fable-5-2", "claude-mythos-5-2"}),
    _preserved("claude-fable-5-1", _FABLE_5_1_READS),
    _preserved("claude-mythos-5-1", _FABLE_5_1_READS),
    _preserved(
        "claude-opus-5-5",
        _CLAUDE_4 | {"claude-sonnet-5", "claude-opus-5", "claude-sonnet-5-5", "claude-haiku-5-5"},
    ),
    _preserved(
        "claude-sonnet-5-5",
        _CLAUDE_4 | {"claude-sonnet-5", "claude-haiku-5-5"},
        thinking_types=frozenset({"adaptive", "between_tools"}),
        thinking_off_needs_high_or_below=True,
        account_bound=True,
    ),
    _preserved(
        "claude-haiku-5-5",
        _CLAUDE_4 | {"claude-sonnet-5"},
        thinking_types=frozenset({"adaptive", "disabled"}),
        thinking_off_needs_high_or_below=True,
        account_bound=True,
        sampling="haiku_5_5",
        forced_tool_choice=True,
    ),
    # Legacy 5.x: adaptive by default, no prefix check, no prefill, no sampling parameters.
    _legacy(
        "claude-opus-5",
        thinking_types=frozenset({"adaptive", "disabled"}),
        thinking_off_needs_high_or_below=True,
        system_messages=True,
        per_message_effort=True,
    ),
    # System messages: "Not available on Claude Sonnet 5" (docs of 2026-09-28).
    _legacy("claude-sonnet-5", thinking_types=frozenset({"adaptive", "disabled"}), min_cacheable_tokens=1024),
    _legacy("claude-fable-5", system_messages=True),
    _legacy("claude-mythos-5", system_messages=True),
    # Claude 4.x still served: thinking is off unless the request turns it on.
    _legacy(
        "claude-opus-4-8",
        thinking_types=frozenset({"adaptive", "disabled"}),
        default_thinking=None,
        system_messages=True,
        min_cacheable_tokens=1024,
    ),
    _legacy(
        "claude-opus-4-7",
        thinking_types=frozenset({"adaptive", "disabled"}),
        default_thinking=None,
        min_cacheable_tokens=2048,
    ),
    *(
        _legacy(
            name,
            thinking_types=frozenset({"adaptive", "enabled", "disabled"}),
            default_thinking=None,
            default_display="summarized",
            sampling="any",
            efforts=_TO_MAX,
            min_cacheable_tokens=min_cache,
        )
        for name, min_cache in (("claude-opus-4-6", 4096), ("claude-sonnet-4-6", 1024))
    ),
    *(
        _legacy(
            name,
            aliases=(snapshot,),
            context_window=200_000,
            max_output=64_000,
            thinking_types=frozenset({"enabled", "disabled"}),
            default_thinking=None,
            default_display="summarized",
            prefill=True,
            sampling="any",
            efforts=efforts,
            min_cacheable_tokens=min_cache,
            end_of_life=end_of_life,
        )
        for name, snapshot, efforts, min_cache, end_of_life in (
            ("claude-opus-4-5", "claude-opus-4-5-20251101", _TO_HIGH, 4096, "January 22nd, 2027"),
            (
                "claude-sonnet-4-5",
                "claude-sonnet-4-5-20250929",
                frozenset[Effort](),
                1024,
                "November 30th, 2026",
            ),
            ("claude-haiku-4-5", "claude-haiku-4-5-20251001", frozenset[Effort](), 4096, None),
        )
    ),
)

#: Every model the server answers for, by canonical id.
SERVED_MODELS: Mapping[str, ServedModel] = {row.id: row for row in _ROWS}


class ModelTable:
    """The rows a server answers for: the built-in table plus the caller's rows (a row with a known id replaces it)."""

    def __init__(self, extra: Iterable[ServedModel] = ()) -> None:
        rows = dict(SERVED_MODELS)
        rows.update({row.id: row for row in extra})
        self._by_name = {name: row for row in rows.values() for name in (row.id, *row.aliases)}

    def get(self, model: object) -> ServedModel | None:
        return self._by_name.get(model) if isinstance(model, str) else None

    def ids(self) -> list[str]:
        return sorted({row.id for row in self._by_name.values()})


def scripted_model(model_id: str, *, like: str = "claude-sonnet-5-5", **changes: Any) -> ServedModel:
    """A row for a made-up id that behaves like a served model, e.g. an Anthropic-compatible endpoint's name."""
    return replace(SERVED_MODELS[like], id=model_id, aliases=(), **changes)
