"""The strict server's gate: every rule applied to a request, and what a response it admits is bound to.

`StrictGate.admit` answers a request with the API's error or an `Admission` (the model's row, the binding of the
thinking blocks, the usage the prompt cache reports); `StrictGate.respond` signs the response's thinking blocks.
The rules run in the order the API validates: the model, the parameters, the tools, the messages, the thinking
blocks sent back, then the size of the prompt.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from ...base.json_values import is_array, is_object
from ..server_tools import undeclared_server_tool
from .binding import Binding, bind_request, sign_response
from .blocks import check_text, check_tool_pairing
from .cache import CacheUsage, PromptCache
from .canonical import block_tokens, canonical_json, digest, prompt_items
from .images import MAX_IMAGE_BYTES, check_images
from .models import ModelTable, ServedModel
from .params import (
    check_effort,
    check_max_tokens,
    check_sampling,
    check_thinking,
    check_tool_choice,
    thinking_type,
)
from .rejection import Rejection, invalid
from .signing import Signer, account_of
from .tool_changes import available_tools
from .tool_defs import check_breakpoints, check_tools
from .turns import check_manual_thinking, check_prefill, check_roles

Endpoint = Literal["messages", "count_tokens"]


@dataclass(frozen=True)
class Admission:
    """A request the gate let through."""

    row: ServedModel
    binding: Binding
    account: str
    betas: frozenset[str]
    #: Thinking text goes out empty (`display: "omitted"`, the default on the 5.x models).
    omitted: bool
    tokens: int
    usage: CacheUsage | None = None
    #: The tools available at the end of the conversation (`tools` not deferred, then the system messages'
    #: tool changes): informational, since the API takes a removal as a hint and accepts a call to a removed tool.
    available_tools: tuple[str, ...] = ()


def betas_of(headers: Mapping[str, str]) -> frozenset[str]:
    raw = headers.get("anthropic-beta", "")
    return frozenset(part.strip() for part in raw.split(",") if part.strip())


def api_key_of(headers: Mapping[str, str]) -> str:
    key = headers.get("x-api-key")
    if key:
        return key
    return headers.get("authorization", "").removeprefix("Bearer ").strip()


def _invalid(message: str | None) -> Rejection | None:
    return None if message is None else invalid(message)


def _omitted(body: dict[str, Any], row: ServedModel) -> bool:
    thinking = body.get("thinking")
    if is_object(thinking) and thinking.get("type") == "between_tools":
        return False  # its progress updates come back with text, "as under display: updates"
    display = thinking.get("display") if is_object(thinking) else None
    return (display or row.default_display) == "omitted"


class StrictGate:
    """The state the rules need across requests: the model table, the signing key, the cache, paused turns."""

    #: Digests of assistant turns answered with `pause_turn`, in any server of the process (see `signing`).
    _paused: set[str] = set()  # noqa: RUF012 - shared on purpose, like the signing key
    _paused_lock = threading.Lock()

    def __init__(
        self,
        *,
        models: Iterable[ServedModel] = (),
        signing_key: bytes | None = None,
        max_image_bytes: int = MAX_IMAGE_BYTES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.models = ModelTable(models)
        self.signer = Signer(signing_key)
        self.cache = PromptCache(clock)
        self.max_image_bytes = max_image_bytes

    def admit(
        self, body: dict[str, Any], headers: Mapping[str, str], endpoint: Endpoint
    ) -> Admission | Rejection:
        model = body.get("model")
        row = self.models.get(model)
        if row is None:
            return Rejection(f"model: {model}", "not_found_error", 404)
        betas = betas_of(headers)
        problem = self._check(body, row, betas, endpoint)
        if problem is not None:
            return problem
        available = available_tools(body, betas, self._was_paused)
        if isinstance(available, Rejection):
            return available
        account = account_of(api_key_of(headers))
        binding = bind_request(body, row, account=account, betas=betas, signer=self.signer)
        if isinstance(binding, Rejection):
            return binding
        dropped = frozenset(t["path"] for t in binding.transformations)
        tokens = sum(block_tokens(it.block) for it in prompt_items(body) if it.path not in dropped)
        admission = Admission(
            row, binding, account, betas, _omitted(body, row), tokens, available_tools=available
        )
        if endpoint == "count_tokens":
            return admission
        if tokens > row.context_window:
            return invalid(f"prompt is too long: {tokens} tokens > {row.context_window} maximum")  # [OBS]
        return replace(admission, usage=self.cache.account(body, row, dropped))

    def _check(
        self, body: dict[str, Any], row: ServedModel, betas: frozenset[str], endpoint: Endpoint
    ) -> Rejection | None:
        messages = body.get("messages")
        if not is_array(messages):
            return invalid("messages: Field required")
        thinking = thinking_type(body, row)
        checks: list[Callable[[], Rejection | None]] = [
            *(
                [lambda: check_max_tokens(body, row, str(body.get("model")))]
                if endpoint == "messages"
                else []
            ),
            lambda: check_thinking(body, row, betas),
            lambda: check_effort(body, row),
            lambda: check_sampling(body, row),
            lambda: check_tool_choice(body, row),
            lambda: check_tools(body),
            lambda: check_breakpoints(body),
            lambda: check_roles(messages, row, betas, self._was_paused),
            lambda: check_text(body),
            lambda: check_tool_pairing(messages),
            lambda: _invalid(undeclared_server_tool(body)),
            lambda: check_prefill(messages, row, self._was_paused),
            lambda: check_manual_thinking(messages, thinking),
            lambda: check_images(body, row, max_bytes=self.max_image_bytes),
        ]
        for check in checks:
            problem = check()
            if problem is not None:
                return problem
        return None

    def respond(
        self, content: list[dict[str, Any]], admission: Admission, *, request_index: int, stop_reason: str
    ) -> list[dict[str, Any]]:
        """`content` with its thinking blocks signed (and emptied under `display: "omitted"`)."""
        signed = sign_response(
            content,
            admission.binding,
            row=admission.row,
            account=admission.account,
            omitted=admission.omitted,
            signer=self.signer,
            request_index=request_index,
        )
        if stop_reason == "pause_turn":
            with StrictGate._paused_lock:
                StrictGate._paused.add(digest(canonical_json(signed)))
        return signed

    @staticmethod
    def _was_paused(content: Any) -> bool:
        """Whether the assistant turn ends with a response the server paused: the whole turn, or its last blocks
        (the API combines consecutive assistant turns, so a client may have appended the paused response to the
        turn it continued)."""
        blocks: list[Any] = list(content) if isinstance(content, list) else [content]  # pyright: ignore[reportUnknownArgumentType]
        with StrictGate._paused_lock:
            return any(
                digest(canonical_json(blocks[start:])) in StrictGate._paused for start in range(len(blocks))
            )
