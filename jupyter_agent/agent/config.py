"""How the agent talks to the model: which model, where, how long a run may go, how much it may spend."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from .models import context_window_for

#: Extended thinking: None (off), a budget in tokens (>= 1024), or "adaptive" (the model decides).
ThinkingSetting = int | Literal["adaptive"] | None

Provider = Literal["anthropic", "bedrock", "vertex"]
PROVIDERS: tuple[Provider, ...] = ("anthropic", "bedrock", "vertex")

#: A current Sonnet from the SDK's model list (`anthropic.types.Model`, SDK 2.12): fast, capable, 1M context.
DEFAULT_MODEL = "claude-sonnet-5-5"
#: Output tokens per model turn: room for a whole file in one Write (the settings' default too).
DEFAULT_MAX_TOKENS = 32_000
#: Model turns per run (the settings' default too).
DEFAULT_MAX_TURNS = 50

#: Compact the conversation once it passes this share of the context window (the settings' default too).
DEFAULT_COMPACT_FRACTION = 0.85


@dataclass(frozen=True, kw_only=True)
class AgentConfig:
    """Settings of one agent session; `dataclasses.replace` makes a per-run variant (`--model`, `--max-turns`)."""

    model: str = DEFAULT_MODEL
    #: Output tokens per model turn. A tool call cut by this limit is sent back as an error to retry smaller.
    max_tokens: int = DEFAULT_MAX_TOKENS
    #: Model turns (requests) per run; a run that needs more stops with reason "max_turns".
    max_turns: int = DEFAULT_MAX_TURNS
    #: Stop a run once its cost reaches this many US dollars (None: no cap). `--max-cost` sets it for one run.
    budget_usd: float | None = None
    #: Stop runs once the session's cost (all runs of this kernel's agent) reaches this many US dollars.
    session_budget_usd: float | None = None
    #: Extended thinking, sent as the API's `thinking` parameter (see `thinking.thinking_param`).
    thinking: ThinkingSetting = None
    provider: Provider = "anthropic"
    #: Tokens the model can read; None looks it up in the model table (200k when unknown).
    context_window: int | None = None
    #: Anthropic API only; None lets the SDK read ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY.
    base_url: str | None = None
    api_key: str | None = None
    #: Bedrock (AWS_REGION etc. when None) and Vertex (CLOUD_ML_REGION, ANTHROPIC_VERTEX_PROJECT_ID when None).
    aws_region: str | None = None
    vertex_region: str | None = None
    vertex_project_id: str | None = None
    #: The SDK's own retries of 429 / 5xx / 529 / connection errors, with its backoff and retry-after.
    max_retries: int = 3
    timeout: float = 600.0
    prompt_caching: bool = True
    #: A tool result longer than this is cut (head and tail kept) before the model sees it.
    max_tool_result_chars: int = 50_000
    #: When the prompt nears this share of the context window, older tool results are shortened ...
    shorten_at: float = 0.75
    #: ... oldest first, until the estimate is under this share.
    shorten_to: float = 0.5
    #: Still over this share of the window after shortening: the model summarises the conversation and
    #: work continues from the summary (None: never compact automatically).
    context_compact_fraction: float | None = DEFAULT_COMPACT_FRACTION
    #: Appended to the system prompt (the user's own standing instructions).
    extra_instructions: str = ""

    def __post_init__(self) -> None:
        if self.max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {self.max_turns}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, got {self.max_tokens}")
        for name in ("budget_usd", "session_budget_usd"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive or None, got {value}")
        fraction = self.context_compact_fraction
        if fraction is not None and not 0 < fraction <= 1:
            raise ValueError(f"context_compact_fraction must be in (0, 1] or None, got {fraction}")
        thinking = self.thinking
        if isinstance(thinking, int) and thinking < 1024:
            raise ValueError(
                f"thinking must be None, 'adaptive' or a budget of at least 1024 tokens, got {thinking}"
            )
        if self.provider not in PROVIDERS:
            raise ValueError(f"provider must be one of {', '.join(PROVIDERS)}, got {self.provider!r}")
        if not 0 < self.shorten_to < self.shorten_at <= 1:
            raise ValueError("need 0 < shorten_to < shorten_at <= 1")

    @property
    def window(self) -> int:
        return self.context_window or context_window_for(self.model)

    def with_overrides(
        self,
        *,
        model: str | None = None,
        max_turns: int | None = None,
        max_cost: float | None = None,
        thinking: ThinkingSetting = None,
    ) -> AgentConfig:
        """The config of one run: `%%agent --model/--max-turns/--max-cost/--think` over the session's."""
        changes: dict[str, object] = {}
        if model:
            changes["model"] = model
        if max_turns is not None:
            changes["max_turns"] = max_turns
        if max_cost is not None:
            changes["budget_usd"] = max_cost
        if thinking is not None:
            changes["thinking"] = thinking
        return dataclasses.replace(self, **changes) if changes else self  # pyright: ignore[reportArgumentType]
