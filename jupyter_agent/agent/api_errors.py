"""What went wrong with the model API, said so a person can act on it: the cause, the endpoint and the fix.

Every message names the endpoint the request went to (`ModelClient.endpoint`: the address the SDK really
used, so an `ANTHROPIC_BASE_URL` proxy is named, not "anthropic"), and a broken stream names its cause
(`cause_text`: "ReadTimeout: nothing arrived for 60 s (model_stall_timeout)", not an empty string).
"""

from __future__ import annotations

import importlib
from typing import Any

from ..base.json_values import is_object
from .config import AgentConfig
from .retry import RetryTooLong

#: Error types of an `event: error` in the middle of a stream that are worth one retry of the request.
_TRANSIENT_STREAM_ERRORS = frozenset({"overloaded_error", "api_error", "rate_limit_error", "timeout_error"})


class IncompleteStream(Exception):
    """The stream ended without `message_stop` (the connection closed cleanly, but too early)."""


def _http_errors(name: str) -> tuple[type[BaseException], ...]:
    """The HTTP library's exception `name` (`TransportError`, `TimeoutException`), from httpx2 and httpx: the
    SDK does not wrap errors raised while a body streams."""
    found: list[type[BaseException]] = []
    for module in ("httpx2", "httpx"):
        try:
            found.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            continue
    return tuple(found)


def is_stream_cut(exc: BaseException) -> bool:
    """True when a stream that had started failed in a way that re-sending the same request may fix."""
    import anthropic

    if isinstance(exc, IncompleteStream | anthropic.APIConnectionError):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return error_type(exc) in _TRANSIENT_STREAM_ERRORS
    return isinstance(exc, _http_errors("TransportError"))


def _error_field(exc: Any, name: str) -> str | None:
    """`name` of the API's error body `{"error": {"type": ..., "message": ...}}`, when the body has one."""
    body: object = getattr(exc, "body", None)
    error = body.get("error") if is_object(body) else None
    value = error.get(name) if is_object(error) else None
    return value if isinstance(value, str) else None


def error_type(exc: Any) -> str:
    return _error_field(exc, "type") or ""


def error_message(exc: Any) -> str:
    message = _error_field(exc, "message")
    return message if message is not None else str(getattr(exc, "message", "") or exc)


#: How the API says a thinking block failed its prefix check (the message's stable part; a sentence naming what
#: changed may follow, and its wording may change).
_BOUND_ELSEWHERE = "bound to a different conversation"
_BAD_SIGNATURE = "Invalid `signature` in `thinking` block"


def thinking_rejection(exc: BaseException) -> str | None:
    """ "prefix" for a 400 saying a thinking block failed the prefix check (repaired by resending with
    `prefix_mismatch_behavior: "drop_block"`), "signature" for a tampered or undecryptable signature (repaired
    only by leaving the thinking blocks out), else None. Never taken for "thinking is not supported"."""
    import anthropic

    if not isinstance(exc, anthropic.BadRequestError):
        return None
    detail = error_message(exc)
    if _BOUND_ELSEWHERE in detail:
        return "prefix"
    if _BAD_SIGNATURE in detail:
        return "signature"
    return None


def is_bad_request(exc: BaseException) -> bool:
    import anthropic

    return isinstance(exc, anthropic.BadRequestError)


def cause_text(exc: BaseException | None, config: AgentConfig) -> str:
    """What broke a stream, in a few words, never empty."""
    import anthropic

    if exc is None:
        return "no cause was given"
    if isinstance(exc, (anthropic.APITimeoutError, *_http_errors("TimeoutException"))):
        return f"{type(exc).__name__}: nothing arrived for {config.stall_timeout:g} s (model_stall_timeout)"
    if isinstance(exc, anthropic.APIStatusError):
        kind = error_type(exc) or f"HTTP {exc.status_code}"
        return f"{kind}: {error_message(exc)}"
    detail = str(exc).strip()
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


def _not_found(where: str, detail: str, model: str) -> str:
    if where.rstrip("/").endswith("/v1"):  # the OpenAI-style address local servers document
        return (
            f"not found (404) at {where}: {detail}. The address ends with /v1, and the SDK adds /v1/messages "
            f'itself: drop the /v1 (`%config AgentMagics.base_url = "{where.rstrip("/").removesuffix("/v1")}"`, or '
            "ANTHROPIC_BASE_URL)."
        )
    return f"not found (404) at {where}: {detail}. Check the model name '{model}'."


def _elsewhere(config: AgentConfig) -> str:
    """How to send the next run somewhere that answers: the settings a user changes in the kernel."""
    if config.provider != "anthropic":
        return f"check the network and the {config.provider} region and credentials, then run again"
    return (
        "start the server there, or point the agent at another with "
        '`%config AgentMagics.base_url = "http://host:port"` (or os.environ["ANTHROPIC_BASE_URL"]), then run '
        "again"
    )


def describe_api_error(exc: BaseException, config: AgentConfig, where: str) -> tuple[str, bool] | None:
    """(a message that says what happened at `where` and what to do, whether running again later may work),
    or None if `exc` is not an API error."""
    import anthropic

    retries = f"after {config.max_retries} retries" if config.max_retries else "(retries are off)"
    if isinstance(exc, RetryTooLong):
        return f"the model API at {where}: {exc}.", True
    if isinstance(exc, anthropic.APITimeoutError):
        return (
            f"the model API at {where} did not answer: {cause_text(exc, config)}, {retries}. Check the "
            "network and the endpoint, and run again (or raise `%config AgentMagics.model_stall_timeout`).",
            True,
        )
    if isinstance(exc, anthropic.APIConnectionError):
        cause = cause_text(exc.__cause__ or exc, config)
        return f"cannot connect to the model API at {where} ({cause}, {retries}): {_elsewhere(config)}.", True
    if not isinstance(exc, anthropic.APIStatusError):
        return None
    status = exc.status_code
    request_id = getattr(exc, "request_id", None)
    ref = f" (request id {request_id})" if request_id else ""
    detail = error_message(exc)
    at = f"at {where}"
    if isinstance(exc, anthropic.AuthenticationError):
        return (
            f"the API {at} rejected the credentials (401): {detail}{ref}. Set ANTHROPIC_API_KEY "
            "(or the provider's credentials) and run again.",
            False,
        )
    if isinstance(exc, anthropic.PermissionDeniedError):
        return f"the API {at} refused access (403): {detail}{ref}.", False
    if isinstance(exc, anthropic.NotFoundError):
        return _not_found(where, f"{detail}{ref}", config.model), False
    if isinstance(exc, anthropic.RateLimitError):
        return f"rate limited (429) {at} {retries}: {detail}{ref}. Wait a minute and run again.", True
    if status == 529 or error_type(exc) == "overloaded_error":
        return f"the API {at} is overloaded (529) {retries}: {detail}{ref}. Run again in a minute.", True
    if status >= 500:
        return f"the API {at} failed ({status}) {retries}: {detail}{ref}. Run again in a minute.", True
    if "prompt is too long" in detail.lower():
        return (
            f"the conversation no longer fits the model's context: {detail}{ref}. "
            "Start over with `%agent reset` (or `%%agent --new`).",
            False,
        )
    return f"the API {at} refused the request ({status}): {detail}{ref}.", False
