"""The model client: the `anthropic` SDK's async client (Anthropic API, Bedrock or Vertex), imported lazily.

`import jupyter_agent` must stay cheap, so nothing here imports `anthropic` at module level; the SDK is
imported when the first run builds its client. Requests go through the SDK's own retries (429, 5xx,
529, connection errors, `retry-after`), its SSE parser and its error types, never raw HTTP.

We consume the SDK's typed raw event stream (`messages.create(stream=True)`) rather than its
`messages.stream()` helper: the helper re-parses a tool's partial JSON on every delta (quadratic for a
large `Write`) and raises `ValueError` in the middle of the stream when the model sends malformed tool
JSON, which loses the rest of the turn. `stream.TurnAssembler` parses each tool input once, at the end
of its block, and turns bad JSON into an INVALID_ARGS result the model can correct.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, cast

from ..base.json_values import is_array, is_object
from .boundary import valid_for_model
from .config import AgentConfig

if TYPE_CHECKING:
    from anthropic.types import RawMessageStreamEvent

#: Error types of an `event: error` in the middle of a stream that are worth one retry of the request.
_TRANSIENT_STREAM_ERRORS = frozenset({"overloaded_error", "api_error", "rate_limit_error", "timeout_error"})


class ModelClient:
    """One SDK client per configuration, created on first use in the worker's event loop."""

    def __init__(self) -> None:
        self._client: Any = None
        self._key: tuple[Any, ...] | None = None
        #: Optional request features this endpoint rejected ("cache_control", "thinking"); left out for the
        #: rest of the session (see `without_unsupported`).
        self.unsupported: set[str] = set()

    def sdk(self, config: AgentConfig) -> Any:
        key = (
            config.provider,
            config.base_url,
            config.api_key,
            config.aws_region,
            config.vertex_region,
            config.vertex_project_id,
            config.max_retries,
            config.timeout,
        )
        if self._client is None or key != self._key:
            self._client = _build(config)
            self._key = key
            _register_credentials(self._client)
        return self._client

    @asynccontextmanager
    async def stream(
        self, config: AgentConfig, params: dict[str, Any]
    ) -> AsyncGenerator[AsyncIterator[RawMessageStreamEvent]]:
        """Open a streaming request (the SDK retries the opening) and close it however the block ends.

        Every request passes `valid_for_model` here: nothing reaches the API that it could not take."""
        stream = await self.sdk(config).messages.create(**valid_for_model(params), stream=True)
        try:
            yield stream
        finally:
            await stream.close()

    async def count_tokens(self, config: AgentConfig, params: dict[str, Any]) -> int:
        keep = ("model", "messages", "system", "tools", "tool_choice", "thinking")
        result = await self.sdk(config).messages.count_tokens(
            **valid_for_model({k: v for k, v in params.items() if k in keep})
        )
        return int(result.input_tokens)

    async def close(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()


def _build(config: AgentConfig) -> Any:
    import anthropic

    common: dict[str, Any] = {"max_retries": config.max_retries, "timeout": config.timeout}
    if config.provider == "bedrock":
        from anthropic.lib.bedrock import AsyncAnthropicBedrock

        return AsyncAnthropicBedrock(aws_region=config.aws_region, **common)
    if config.provider == "vertex":
        vertex: dict[str, Any] = {}
        if config.vertex_region:
            vertex["region"] = config.vertex_region
        if config.vertex_project_id:
            vertex["project_id"] = config.vertex_project_id
        from anthropic.lib.vertex import AsyncAnthropicVertex

        return AsyncAnthropicVertex(**vertex, **common)
    direct: dict[str, Any] = {}
    if config.base_url:
        direct["base_url"] = config.base_url
    if config.api_key:
        direct["api_key"] = config.api_key
    return anthropic.AsyncAnthropic(**direct, **common)


def _register_credentials(client: Any) -> None:
    """Whatever credential the SDK client ended up with (argument or environment) is masked everywhere."""
    from ..masking import register

    for attribute in ("api_key", "auth_token"):
        value = getattr(client, attribute, None)
        if isinstance(value, str):
            register(f"model client {attribute}", value)


def _transport_errors() -> tuple[type[BaseException], ...]:
    """The HTTP library's transport errors (the SDK does not wrap errors raised while a body streams)."""
    found: list[type[BaseException]] = []
    for module in ("httpx2", "httpx"):
        try:
            found.append(importlib.import_module(module).TransportError)
        except (ImportError, AttributeError):
            continue
    return tuple(found)


def is_stream_cut(exc: BaseException) -> bool:
    """True when a stream that had started failed in a way that re-sending the same request may fix."""
    import anthropic

    if isinstance(exc, IncompleteStream | anthropic.APIConnectionError):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return _error_type(exc) in _TRANSIENT_STREAM_ERRORS
    return isinstance(exc, _transport_errors())


class IncompleteStream(Exception):
    """The stream ended without `message_stop` (the connection closed cleanly, but too early)."""


def _error_field(exc: Any, name: str) -> str | None:
    """`name` of the API's error body `{"error": {"type": ..., "message": ...}}`, when the body has one."""
    body: object = getattr(exc, "body", None)
    error = body.get("error") if is_object(body) else None
    value = error.get(name) if is_object(error) else None
    return value if isinstance(value, str) else None


def _error_type(exc: Any) -> str:
    return _error_field(exc, "type") or ""


def _error_message(exc: Any) -> str:
    message = _error_field(exc, "message")
    return message if message is not None else str(getattr(exc, "message", "") or exc)


#: Optional request features an Anthropic-compatible endpoint may not know, and how its 400 names them.
OPTIONAL_FEATURES = ("cache_control", "thinking")


def rejected_feature(exc: BaseException, params: dict[str, Any]) -> str | None:
    """The optional feature a 400 names, when the request used it (`system.0.cache_control: Extra inputs…`)."""
    import anthropic

    if not isinstance(exc, anthropic.BadRequestError):
        return None
    detail = _error_message(exc)
    sent = json.dumps(params, default=str)
    for feature in OPTIONAL_FEATURES:
        if feature in detail and f'"{feature}"' in sent:
            return feature
    return None


def _drop_key(value: Any, key: str) -> Any:
    if is_object(value):
        return {k: _drop_key(v, key) for k, v in value.items() if k != key}
    if is_array(value):
        return [_drop_key(v, key) for v in value]
    return value


def without_unsupported(params: dict[str, Any], unsupported: set[str]) -> dict[str, Any]:
    """The request without the features this endpoint rejected (a copy; unchanged when there are none)."""
    if "thinking" in unsupported and "thinking" in params:
        params = {k: v for k, v in params.items() if k != "thinking"}
    if "cache_control" in unsupported:
        params = cast(dict[str, Any], _drop_key(params, "cache_control"))
    return params


def describe_api_error(exc: BaseException, config: AgentConfig) -> tuple[str, bool] | None:
    """(a message that says what to do, whether running again later may work), or None if not an API error."""
    import anthropic

    retries = f"after {config.max_retries} retries" if config.max_retries else "(retries are off)"
    if isinstance(exc, anthropic.APIConnectionError):
        where = config.base_url or config.provider
        kind = "timed out" if isinstance(exc, anthropic.APITimeoutError) else "failed"
        return (
            f"the connection to the model API ({where}) {kind} {retries}: {exc}. Check the network and run again.",
            True,
        )
    if not isinstance(exc, anthropic.APIStatusError):
        return None
    status = exc.status_code
    request_id = getattr(exc, "request_id", None)
    ref = f" (request id {request_id})" if request_id else ""
    detail = _error_message(exc)
    if isinstance(exc, anthropic.AuthenticationError):
        return (
            f"the API rejected the credentials (401): {detail}{ref}. Set ANTHROPIC_API_KEY "
            "(or the provider's credentials) and run again.",
            False,
        )
    if isinstance(exc, anthropic.PermissionDeniedError):
        return f"the API refused access (403): {detail}{ref}.", False
    if isinstance(exc, anthropic.NotFoundError):
        return f"not found (404): {detail}{ref}. Check the model name '{config.model}'.", False
    if isinstance(exc, anthropic.RateLimitError):
        return f"rate limited (429) {retries}: {detail}{ref}. Wait a minute and run again.", True
    if status == 529 or _error_type(exc) == "overloaded_error":
        return f"the API is overloaded (529) {retries}: {detail}{ref}. Run again in a minute.", True
    if status >= 500:
        return f"the API failed ({status}) {retries}: {detail}{ref}. Run again in a minute.", True
    if "prompt is too long" in detail.lower():
        return (
            f"the conversation no longer fits the model's context: {detail}{ref}. "
            "Start over with `%agent reset` (or `%%agent --new`).",
            False,
        )
    return f"the API refused the request ({status}): {detail}{ref}.", False
