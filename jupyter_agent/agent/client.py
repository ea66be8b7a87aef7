"""The model client: the `anthropic` SDK's async client (Anthropic API, Bedrock or Vertex), imported lazily.

`import jupyter_agent` must stay cheap, so nothing here imports `anthropic` at module level; the SDK is
imported when the first run builds its client. Requests go through the SDK's own retries (429, 5xx,
529, connection errors, `retry-after`), its SSE parser and its error types, never raw HTTP.

We consume the SDK's typed raw event stream (what `messages.create(stream=True)` returns; to the Anthropic API
the body goes already encoded, see `request_body`) rather than its
`messages.stream()` helper: the helper re-parses a tool's partial JSON on every delta (quadratic for a
large `Write`) and raises `ValueError` in the middle of the stream when the model sends malformed tool
JSON, which loses the rest of the turn. `stream.TurnAssembler` parses each tool input once, at the end
of its block, and turns bad JSON into an INVALID_ARGS result the model can correct.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from ..base.json_values import is_array, is_object
from ..masking import REGISTRY, register
from .api_errors import error_message, thinking_rejection
from .config import AgentConfig
from .events import RetryWait
from .request_body import encoded_body, masked_request
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
            _provider_environment(),
        )
        if self._client is None or key != self._key:
            if self._key is not None and _endpoint_of(key) != _endpoint_of(self._key):
                self.unsupported.clear()  # another endpoint: what the old one refused says nothing of it
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
        however the block ends. `params["betas"]`, when present, goes as the `anthropic-beta` header (through the
        SDK's beta namespace). What goes to the API was made valid where it entered the conversation
        (`boundary.valid_blocks`), so a request costs no walk over the whole conversation here."""
        request, create = self._create(config, params)

        async def attempt() -> Any:
            return await create(**request, stream=True)

        stream = await with_retries(attempt, policy=_policy(config), on_wait=on_wait)
        try:
            yield stream
        finally:
            await stream.close()

    def _create(self, config: AgentConfig, params: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        """The request without `betas`, and the SDK method that sends it (the beta one when there are betas). To
        the Anthropic API, a request whose messages carry their JSON text (`request_body`) goes as those bytes."""
        sdk = self.sdk(config)
        betas = params.get("betas")
        scanner = REGISTRY.scanner()  # the model's sink: masked with the secrets known at send time
        body = encoded_body({**params, "stream": True}, scanner) if config.provider == "anthropic" else None
        if body is not None:
            model, thinking = str(params.get("model")), params.get("thinking")
            return {}, partial(_post_encoded, sdk, body, model=model, thinking=thinking, betas=betas or [])
        params = masked_request(scanner, params)
        if not betas:
            return {k: v for k, v in params.items() if k != "betas"}, sdk.messages.create
        return params, sdk.beta.messages.create

    async def count_tokens(self, config: AgentConfig, params: dict[str, Any]) -> int:
        keep = ("model", "messages", "system", "tools", "tool_choice", "thinking", "betas", "output_config")
        request = masked_request(REGISTRY.scanner(), {k: v for k, v in params.items() if k in keep})
        sdk = self.sdk(config)
        count = sdk.beta.messages.count_tokens if request.get("betas") else sdk.messages.count_tokens
        if not request.get("betas"):
            request.pop("betas", None)

        async def attempt() -> Any:
            return await count(**request)

        result = await with_retries(attempt, policy=_policy(config), on_wait=_quiet)
        return int(result.input_tokens)

    async def close(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()


async def _post_encoded(
    sdk: Any, body: bytes, *, model: str, thinking: Any, betas: list[str], stream: bool
) -> Any:
    """Stream a request whose body is already JSON, through the SDK's own `post` (its headers, retries off,
    timeouts, SSE parser and error types), as `messages.create(stream=True)` would: the beta endpoint
    (`?beta=true`, the `anthropic-beta` header) when there are betas, and the SDK's warnings."""
    from anthropic import AsyncStream
    from anthropic.types import Message, RawMessageStreamEvent
    from anthropic.types.beta import BetaMessage, BetaRawMessageStreamEvent

    _warn_as_create_does(model, thinking)
    beta = {"headers": {"anthropic-beta": ",".join(betas)}, "params": {"beta": "true"}}
    return await sdk.post(
        "/v1/messages",
        cast_to=BetaMessage if betas else Message,
        content=body,
        options=beta if betas else {},
        stream=stream,
        stream_cls=AsyncStream[BetaRawMessageStreamEvent] if betas else AsyncStream[RawMessageStreamEvent],
    )


def _warn_as_create_does(model: str, thinking: Any) -> None:
    """The warnings `messages.create` gives, from the SDK's own tables and in its words: a model it lists as
    deprecated, and budget thinking (`type: enabled`) on a model it wants on adaptive thinking."""
    import importlib

    tables = importlib.import_module("anthropic.resources.messages.messages")  # both tables, SDK 1.x and 2.x
    deprecated: Any = getattr(tables, "DEPRECATED_MODELS", {})
    if model in deprecated:
        warnings.warn(
            f"The model '{model}' is deprecated and will reach end-of-life on {deprecated[model]}.\nPlease migrate "
            "to a newer model. Visit https://docs.anthropic.com/en/docs/resources/model-deprecations for more "
            "information.",
            DeprecationWarning,
            stacklevel=4,
        )
    budget_warned: Any = getattr(tables, "MODELS_TO_WARN_WITH_THINKING_ENABLED", ())
    if model in budget_warned and is_object(thinking) and thinking.get("type") == "enabled":
        warnings.warn(
            f"Using Claude with {model} and 'thinking.type=enabled' is deprecated. Use 'thinking.type=adaptive' "
            "instead which results in better model performance in our testing: "
            "https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking",
            UserWarning,
            stacklevel=4,
        )


#: What the SDK's clients read from the environment when they are built (the key, the address, a cloud's
#: region and credentials): a change to any of these in the kernel builds a new client at the next request.
_PROVIDER_ENV_PREFIXES = ("ANTHROPIC_", "AWS_", "CLOUD_ML_", "GOOGLE_")


def _endpoint_of(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """The parts of a client's cache key that choose where requests go (all but the stall timeout)."""
    return key[:-2] + key[-1:]


def _provider_environment() -> str:
    """A digest of the provider variables as they are now (a digest, so the cache key holds no second copy of a
    key): `os.environ['ANTHROPIC_BASE_URL'] = …` after the first run applies at the next one."""
    digest = hashlib.sha256()
    for name in sorted(n for n in os.environ if n.startswith(_PROVIDER_ENV_PREFIXES)):
        digest.update(f"{name}\0{os.environ[name]}\0".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


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
    for attribute in ("api_key", "auth_token"):
        value = getattr(client, attribute, None)
        if isinstance(value, str):
            register(f"model client {attribute}", value)


#: Optional request features an Anthropic-compatible endpoint may not know, and how its 400 names them.
OPTIONAL_FEATURES = ("cache_control", "thinking")


#: How an endpoint says it does not know a field: pydantic's words, and the usual others.
_UNKNOWN_FIELD = re.compile(
    r"extra inputs are not permitted|extra fields? not permitted|unknown (?:field|parameter|key)|"
    r"unrecognized (?:field|parameter|key)|unexpected (?:field|parameter|key)|not a valid (?:field|parameter)",
    re.IGNORECASE,
)


def rejected_feature(exc: BaseException, params: dict[str, Any]) -> str | None:
    """The optional feature a 400 says the endpoint does not know, when the request used it
    (`system.0.cache_control: Extra inputs are not permitted`). A 400 about thinking blocks — the prefix check, a
    signature — or about a value the model does not take is not that: it never turns a feature off."""
    import anthropic

    if not isinstance(exc, anthropic.BadRequestError) or thinking_rejection(exc) is not None:
        return None
    detail = error_message(exc)
    if not _UNKNOWN_FIELD.search(detail):
        return None
    sent = json.dumps(params, default=str)
    for feature in OPTIONAL_FEATURES:
        if re.search(rf"\b{feature}\b", detail) and f'"{feature}"' in sent:
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
