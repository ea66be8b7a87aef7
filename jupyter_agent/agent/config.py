"""How the agent talks to the model: which model, where, how long a run may go, how much it may spend."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .models import Effort, context_window_for
from .prompt import OutputStyle
from .thinking import ThinkingPlan, ThinkingSetting, plan_thinking

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
#: The longest retry-after wait honoured, and the silence that counts as a stall (seconds; settings' defaults).
DEFAULT_RETRY_WAIT_MAX = 60.0
DEFAULT_STALL_TIMEOUT = 60.0


@dataclass(frozen=True, kw_only=True)
class AgentConfig:
    """How one run calls the model; the host makes it from the settings and the run's flags before each run."""

    model: str = DEFAULT_MODEL
    #: Output tokens per model turn. A tool call cut by this limit is sent back as an error to retry smaller.
    max_tokens: int = DEFAULT_MAX_TOKENS
    #: Model turns (requests) per run; a run that needs more stops with reason "max_turns".
    max_turns: int = DEFAULT_MAX_TURNS
    #: Stop a run once its cost reaches this many US dollars (None: no cap). `--max-cost` sets it for one run.
    budget_usd: float | None = None
    #: Stop runs once the session's cost (all runs of this kernel's agent) reaches this many US dollars.
    session_budget_usd: float | None = None
    #: Extended thinking (see `thinking.plan_thinking`): None is the model's default.
    thinking: ThinkingSetting = None
    #: `output_config.effort` (None: the model's default).
    effort: Effort | None = None
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
    #: Retries of a request that failed with 429 / 5xx / 529 / a connection error (agent/retry.py).
    max_retries: int = 3
    #: The longest wait a server may ask for before a retry (retry-after); a longer one ends the run at once.
    retry_wait_max: float = DEFAULT_RETRY_WAIT_MAX
    #: Seconds without a byte from the model API (connecting, or in the middle of an answer) before the
    #: request counts as stalled: retried (a stream once), then reported.
    stall_timeout: float = DEFAULT_STALL_TIMEOUT
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
    #: A Claude Code output style: its text takes the place of the prompt's answer section.
    output_style: OutputStyle | None = None
    #: The small, fast model of side requests (WebFetch's extraction); None: the newest Haiku, or the session's
    #: model when it is named an endpoint's own way (`agent/small_model.py`).
    small_model: str | None = None

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
                f"thinking must be None, 'off', 'adaptive' or a budget of at least 1024 tokens, got {thinking}"
            )
        if self.provider not in PROVIDERS:
            raise ValueError(f"provider must be one of {', '.join(PROVIDERS)}, got {self.provider!r}")
        for name in ("retry_wait_max", "stall_timeout"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if not 0 < self.shorten_to < self.shorten_at <= 1:
            raise ValueError("need 0 < shorten_to < shorten_at <= 1")

    def thinking_plan(self) -> ThinkingPlan:
        """This configuration's thinking, effort and `max_tokens` as the model takes them (`ThinkingSettingError`
        when it cannot)."""
        return plan_thinking(
            setting=self.thinking, effort=self.effort, model=self.model, max_tokens=self.max_tokens
        )

    @property
    def window(self) -> int:
        return self.context_window or context_window_for(self.model)
