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

import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, cast

from ..base.json_values import is_array, is_object
from .api_errors import error_message
from .boundary import valid_for_model
from .config import AgentConfig
from .events import RetryWait
from .retry import RetryPolicy, with_retries

if TYPE_CHECKING:
    from anthropic.types import RawMessageStreamEvent


def _quiet(_: RetryWait) -> None:
    return None


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
            config.stall_timeout,
        )
        if self._client is None or key != self._key:
            self._client = _build(config)
            self._key = key
            _register_credentials(self._client)
        return self._client

    def endpoint(self, config: AgentConfig) -> str:
        """Where requests go, as errors name it: the address the SDK uses (an `ANTHROPIC_BASE_URL` too), or
        the cloud provider and its region."""
        if config.provider == "bedrock":
            return f"Bedrock ({config.aws_region or 'AWS_REGION'})"
        if config.provider == "vertex":
            return f"Vertex AI ({config.vertex_region or 'CLOUD_ML_REGION'})"
        try:
            return str(self.sdk(config).base_url).rstrip("/")
        except Exception:  # the SDK could not even be built (no key): name what was configured
            return config.base_url or "the Anthropic API"

    @asynccontextmanager
    async def stream(
        self, config: AgentConfig, params: dict[str, Any], *, on_wait: Callable[[RetryWait], None] = _quiet
    ) -> AsyncGenerator[AsyncIterator[RawMessageStreamEvent]]:
        """Open a streaming request (retried as agent/retry.py says, each wait told to `on_wait`) and close it
        however the block ends.

        Every request passes `valid_for_model` here: nothing reaches the API that it could not take."""
        request = valid_for_model(params)
        sdk = self.sdk(config)

        async def attempt() -> Any:
            return await sdk.messages.create(**request, stream=True)

        stream = await with_retries(attempt, policy=_policy(config), on_wait=on_wait)
        try:
            yield stream
        finally:
            await stream.close()

    async def count_tokens(self, config: AgentConfig, params: dict[str, Any]) -> int:
        keep = ("model", "messages", "system", "tools", "tool_choice", "thinking")
        request = valid_for_model({k: v for k, v in params.items() if k in keep})
        sdk = self.sdk(config)

        async def attempt() -> Any:
            return await sdk.messages.count_tokens(**request)

        result = await with_retries(attempt, policy=_policy(config), on_wait=_quiet)
        return int(result.input_tokens)

    async def close(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()


def _policy(config: AgentConfig) -> RetryPolicy:
    return RetryPolicy(max_retries=config.max_retries, max_wait=config.retry_wait_max)


#: Seconds to open a connection to the model API (a stall of the connection itself).
CONNECT_TIMEOUT = 10.0


def _build(config: AgentConfig) -> Any:
    """The SDK client, with its own retries off (agent/retry.py retries, visibly) and timeouts that catch a
    stall: `stall_timeout` seconds without a byte, CONNECT_TIMEOUT to connect."""
    import anthropic

    stall = config.stall_timeout
    timeout = anthropic.Timeout(
        stall, connect=min(CONNECT_TIMEOUT, stall), read=stall, write=stall, pool=stall
    )
    common: dict[str, Any] = {"max_retries": 0, "timeout": timeout}
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


#: Optional request features an Anthropic-compatible endpoint may not know, and how its 400 names them.
OPTIONAL_FEATURES = ("cache_control", "thinking")


def rejected_feature(exc: BaseException, params: dict[str, Any]) -> str | None:
    """The optional feature a 400 names, when the request used it (`system.0.cache_control: Extra inputs…`)."""
    import anthropic

    if not isinstance(exc, anthropic.BadRequestError):
        return None
    detail = error_message(exc)
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
