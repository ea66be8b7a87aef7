"""What the loop tells the UI, as plain values: one event per thing that happened, in order.

The loop runs on the worker thread and calls `emit(event)` for each of these; the UI thread renders them.
Every `ToolStarted` is followed by exactly one `ToolFinished` (with an INTERRUPTED result if the run stopped
first), and every run ends with exactly one `RunFinished`. A call's `ToolWriting` events (its card, opened while
the model writes it) are followed by its `ToolStarted`, or, when the answer stopped before the call was
complete, by one INTERRUPTED `ToolFinished` (it never runs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..base.result import ToolResult
from ..permissions.policy import Decision

if TYPE_CHECKING:
    from ..tools.core import ToolKind


@dataclass(frozen=True, kw_only=True)
class Usage:
    """Token counts; `input` excludes the cached part (`cache_read`) and the part written to cache (`cache_write`)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    #: Searches the server-side web search tool made (billed per search).
    web_searches: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input=self.input + other.input,
            output=self.output + other.output,
            cache_read=self.cache_read + other.cache_read,
            cache_write=self.cache_write + other.cache_write,
            web_searches=self.web_searches + other.web_searches,
        )

    @property
    def prompt_tokens(self) -> int:
        """Everything the model read for this request: the size of the prompt."""
        return self.input + self.cache_read + self.cache_write

    @property
    def cache_read_share(self) -> float:
        """The part of the prompt tokens read from the cache (0 to 1): what prompt caching saved."""
        prompt = self.prompt_tokens
        return self.cache_read / prompt if prompt else 0.0

    def as_dict(self) -> dict[str, int]:
        counts = {
            "input": self.input,
            "output": self.output,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
        }
        return {**counts, "web_searches": self.web_searches} if self.web_searches else counts

    @classmethod
    def from_api(cls, usage: Any) -> Usage:
        """From the SDK's `Usage` / `MessageDeltaUsage` (fields may be None)."""
        return cls(
            input=getattr(usage, "input_tokens", None) or 0,
            output=getattr(usage, "output_tokens", None) or 0,
            cache_read=getattr(usage, "cache_read_input_tokens", None) or 0,
            cache_write=getattr(usage, "cache_creation_input_tokens", None) or 0,
            web_searches=web_search_requests(usage) or 0,
        )


def web_search_requests(usage: Any) -> int | None:
    """`usage.server_tool_use.web_search_requests`, when the API reported it."""
    server = getattr(usage, "server_tool_use", None)
    value = getattr(server, "web_search_requests", None)
    return value if isinstance(value, int) else None


#: `blocked`: a UserPromptSubmit hook refused the request before it was sent.
RunReason = Literal["end_turn", "max_turns", "budget", "interrupted", "error", "refusal", "blocked"]


@dataclass(frozen=True, kw_only=True)
class RunStarted:
    run_id: int
    model: str
    mode: str


@dataclass(frozen=True, kw_only=True)
class TextDelta:
    text: str


@dataclass(frozen=True, kw_only=True)
class TextDone:
    """The current text block is complete (a tool call or the end of the answer follows)."""


@dataclass(frozen=True, kw_only=True)
class ThinkingDelta:
    """A piece of the model's extended thinking (shown collapsed and dimmed, never as the answer)."""

    text: str


@dataclass(frozen=True, kw_only=True)
class ThinkingDone:
    """The current thinking block is complete."""


@dataclass(frozen=True, kw_only=True)
class Compacted:
    """The conversation was replaced by the model's summary of it (one line in the output)."""

    tokens_before: int
    tokens_after: int
    messages_before: int
    automatic: bool


@dataclass(frozen=True, kw_only=True)
class ToolWriting:
    """The model is writing a tool call: its card opens at the block's start and grows as the input arrives.

    `text` is what has arrived of the input field the tool shows as it is written (`Tool.streamed_field`:
    NotebookEdit's `new_source`, Write's `content`, RunCode's `code`), None before it starts or for a tool
    without one. Nothing about the call is decided or run until its `ToolStarted`."""

    call_id: str
    name: str
    kind: ToolKind = "other"
    text: str | None = None
    parent_id: str = ""


@dataclass(frozen=True, kw_only=True)
class ToolStarted:
    """The model finished writing a tool call; it has not been approved or run yet."""

    call_id: str
    name: str
    input: Any
    #: The tool's kind (read / edit / delete / execute / other), so the card shows its icon from the start.
    kind: ToolKind = "other"
    #: The id of the Task call whose sub-agent made this call ("" for the run's own calls): nest it there.
    parent_id: str = ""


@dataclass(frozen=True, kw_only=True)
class ToolRunning:
    """The call passed its permission check (or was approved) and really starts now."""

    call_id: str
    title: str
    parent_id: str = ""


@dataclass(frozen=True, kw_only=True)
class ToolProgress:
    """A running call said how far it got (an MCP server's progress notification), shown on its card."""

    call_id: str
    #: "40/100", "40%" or "" when the server gave no numbers.
    done: str
    message: str = ""
    parent_id: str = ""


@dataclass(frozen=True, kw_only=True)
class ToolFinished:
    call_id: str
    name: str
    title: str
    kind: ToolKind
    result: ToolResult
    #: Seconds the call ran; None for a call answered without running (the run stopped first).
    duration: float | None
    decision: Decision | None
    parent_id: str = ""


@dataclass(frozen=True, kw_only=True)
class UsageUpdate:
    """After each model turn: that turn, the run so far and the session so far."""

    turn: Usage
    run: Usage
    run_cost_usd: float
    session: Usage
    session_cost_usd: float


@dataclass(frozen=True, kw_only=True)
class Notice:
    """Something the user should know that is not an error: a retry, a cut answer, shortened results."""

    level: Literal["info", "warning"]
    message: str


@dataclass(frozen=True, kw_only=True)
class RetryWait:
    """The request failed in a way a retry may fix; the next try starts after `seconds` (shown counting down)."""

    reason: str
    seconds: float
    #: This is retry number `retry` of at most `retries`.
    retry: int
    retries: int
    #: True when the server asked for this wait (retry-after), False for the client's own backoff.
    asked: bool


@dataclass(frozen=True, kw_only=True)
class ErrorEvent:
    """The run cannot go on. `retryable`: running the same cell again later may work (overload, network)."""

    message: str
    retryable: bool


@dataclass(frozen=True, kw_only=True)
class RunFinished:
    reason: RunReason
    turns: int
    usage: Usage
    cost_usd: float
    duration: float
    #: The session's cost so far (all runs of this kernel's agent), for the footer.
    session_cost_usd: float = 0.0
    #: False for a model without a known price (a local model, a proxy's name): the cost is "n/a", not $0.
    priced: bool = True
    #: False when no request of the run was answered (it never reached the model): the cell then shows the
    #: error alone, not a footer of turns and cost for a run that never connected.
    answered: bool = True


AgentEvent = (
    RunStarted
    | TextDelta
    | TextDone
    | ThinkingDelta
    | ThinkingDone
    | Compacted
    | ToolWriting
    | ToolStarted
    | ToolRunning
    | ToolProgress
    | ToolFinished
    | UsageUpdate
    | Notice
    | RetryWait
    | ErrorEvent
    | RunFinished
)
Emit = Callable[[AgentEvent], None]


def ended_before_start(
    emit: Emit, session_cost_usd: float, *, error: str | None = None, blocked: str | None = None
) -> RunFinished:
    """End a run that sent nothing: the request `blocked` by a UserPromptSubmit hook (not sent, nor kept in the
    conversation), or an `error` that made it unsendable; said in the cell, then the run's `RunFinished`."""
    if blocked is not None:
        emit(Notice(level="warning", message=f"a UserPromptSubmit hook blocked this request: {blocked}"))
    if error is not None:
        emit(ErrorEvent(message=error, retryable=False))
    finished = RunFinished(
        reason="blocked" if blocked is not None else "error",
        turns=0,
        usage=Usage(),
        cost_usd=0.0,
        duration=0.0,
        session_cost_usd=session_cost_usd,
        answered=False,
    )
    emit(finished)
    return finished
