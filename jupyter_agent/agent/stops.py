"""What the loop does after each stop reason the Messages API sends, as one table keyed by the SDK's type.

`STOP_REASONS` has a row for every value of `anthropic.types.StopReason` (a test checks it). A stop reason
that is not in it — from a newer API, an Anthropic-compatible endpoint's own word, or none at all — is never
taken for a finished turn: its tool calls are not run and the run ends with an error that names it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .config import AgentConfig
from .events import Notice, RunReason

if TYPE_CHECKING:
    from anthropic.types import StopReason


#: The response's `stop_details` as a dict (a refusal's `category` and `explanation`), or None.
StopDetails = Mapping[str, Any] | None

#: What a user can do after a refusal (the docs: the refused turn must not be sent again as it was).
REFUSAL_NEXT = (
    "rephrase the request or say more about its purpose and run the cell again; `%agent rewind` takes this "
    "request back out of the conversation, `%agent reset` starts over"
)


@dataclass(frozen=True, kw_only=True)
class AfterStop:
    #: The turn's tool calls run and their results go back to the model (else they are answered "not run").
    runs_calls: bool = False
    #: Without tool calls, another request continues the turn (the server paused a long one).
    continues: bool = False
    #: How the run ends when it does not go on.
    reason: RunReason = "end_turn"
    #: What the cell says when the turn ends without tool calls (from the settings and the response's
    #: `stop_details`, when it carried them).
    notice: Callable[[AgentConfig, StopDetails], Notice] | None = None
    #: The run cannot go on: an error that says why (an unknown stop reason).
    failure: str | None = None


def _cut(config: AgentConfig, _details: StopDetails) -> Notice:
    return Notice(
        level="warning",
        message=f"the answer was cut at max_tokens ({config.max_tokens} output tokens); "
        "ask it to continue, or raise max_tokens",
    )


def _paused(_config: AgentConfig, _details: StopDetails) -> Notice:
    return Notice(level="info", message="the model paused a long turn; continuing it")


def _refused(_config: AgentConfig, details: StopDetails) -> Notice:
    return Notice(level="warning", message=refusal_text(details))


def refusal_text(details: StopDetails) -> str:
    """The refusal as the cell says it: the policy category and the API's explanation where the response
    carried them (`stop_details`), then what the user can do next."""
    details = details or {}
    category = details.get("category")
    explanation = str(details.get("explanation") or "").strip()
    said = f"refusal, category '{category}'" if isinstance(category, str) and category else "refusal"
    why = f": {explanation.rstrip('.')}" if explanation else ""
    return f"the model declined to continue this request ({said}){why}. To go on, {REFUSAL_NEXT}"


def _window_full(_config: AgentConfig, _details: StopDetails) -> Notice:
    return Notice(
        level="warning", message="the model's context window is full; start over with `%agent reset`"
    )


STOP_REASONS: dict[StopReason, AfterStop] = {
    "end_turn": AfterStop(),
    # The agent sends no stop sequences; an endpoint that stops on one has ended the turn.
    "stop_sequence": AfterStop(),
    "tool_use": AfterStop(runs_calls=True),
    # Finished calls run; a call cut mid-JSON gets an error asking for a smaller input.
    "max_tokens": AfterStop(runs_calls=True, notice=_cut),
    "pause_turn": AfterStop(runs_calls=True, continues=True, notice=_paused),
    "refusal": AfterStop(reason="refusal", notice=_refused),
    "model_context_window_exceeded": AfterStop(notice=_window_full),
}


#: The same rows, found by whatever string arrived (the SDK does not validate it).
_BY_TEXT: dict[str, AfterStop] = {reason: after for reason, after in STOP_REASONS.items()}


def after_stop(stop_reason: str | None) -> AfterStop:
    """The table's row, or for anything else a failure that names what the model sent."""
    known = _BY_TEXT.get(stop_reason) if stop_reason is not None else None
    if known is not None:
        return known
    said = f"with the stop reason {stop_reason!r}" if stop_reason is not None else "without a stop reason"
    return AfterStop(
        reason="error",
        failure=f"UNKNOWN_STOP_REASON: the model's turn ended {said}, which this version of jupyter_agent "
        "does not know how to continue; its tool calls were not run. Run the cell again, or update "
        "jupyter_agent if it happens again",
    )
