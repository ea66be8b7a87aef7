"""The binding checks on thinking blocks sent back, and the binding of the thinking blocks a response carries.

Per the docs ("Preserved thinking", "Prefix checks on thinking blocks", "Thinking troubleshooting"), in this order for
each `thinking` / `redacted_thinking` block of a request:

1. a signature that is empty, truncated, altered or not ours is always a 400 (``Invalid `signature` in `thinking`
   block``), and so is edited text in the latest assistant message (``… cannot be modified …``);
2. a block from another account (Sonnet 5.5 / Haiku 5.5 blocks are account-bound) is dropped
   (`organization_binding_mismatch`), then a block the model cannot read is dropped (`model_binding_mismatch`);
   neither is an error;
3. on a model with preserved thinking, the prefix check: `system`, `tools` and the messages before the block must be
   what they were when it was produced, and the thinking block before it must be the one it followed (remove blocks
   from the start or the end, never from the middle). A failure is a 400, or with `prefix_mismatch_behavior:
   "drop_block"` a drop (`prefix_binding_mismatch`).

Drops are reported in the response's `input_transformations` only under the `thinking-binding-controls-2026-08-01`
beta, as the API does; without it they happen all the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...base.json_values import is_object
from .canonical import Item, digest, message_items, section_digest
from .models import ServedModel
from .rejection import Rejection, invalid
from .signing import Seal, Signer, block_id, content_digest

BINDING_BETA = "thinking-binding-controls-2026-08-01"

_BOUND = (
    "Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, "
    'or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".'
)
_NEEDS_BETA = f"That setting requires the `{BINDING_BETA}` value in the `anthropic-beta` header."
_MODIFIED = (
    "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must "
    "remain as they were in the original response."
)


@dataclass
class Binding:
    """What the checks found in a request, and what its response's blocks are bound to."""

    system: str
    tools: str
    #: Digest of the request's messages (thinking blocks left out): the prefix of the response's first block.
    prefix: str
    #: Id of the request's last thinking block as sent, or "".
    previous: str = ""
    #: `input_transformations` entries, in request order.
    transformations: list[dict[str, str]] = field(default_factory=lambda: [])


def mismatch_behavior(body: dict[str, Any], row: ServedModel) -> str:
    thinking = body.get("thinking")
    options = thinking.get("block_binding") if is_object(thinking) else None
    chosen = options.get("prefix_mismatch_behavior") if is_object(options) else None
    return chosen if chosen in ("error", "drop_block") else row.prefix_mismatch_default


def _what_changed(seal: Seal, binding: Binding, running: str, previous: str) -> str:
    """The sentence the API adds for people and logs (our wording; the docs say it names what changed)."""
    if seal.system != binding.system:
        return "The `system` prompt differs from the one this block was created with."
    if seal.tools != binding.tools:
        return "The `tools` list differs from the one this block was created with."
    if seal.prefix != running:
        return "Content that preceded this block when it was created differs in this request."
    return f"The thinking block this block followed is missing or out of order (found {previous or 'none'})."


def bind_request(
    body: dict[str, Any], row: ServedModel, *, account: str, betas: frozenset[str], signer: Signer
) -> Binding | Rejection:
    """Check every thinking block of `body` for `row`; a `Rejection` for the first one that fails with an error."""
    binding = Binding(system=section_digest(body, "system"), tools=section_digest(body, "tools"), prefix="")
    running = digest("messages")
    previous = ""
    items = list(message_items(body.get("messages") or []))
    latest = max(
        (it.message for it in items if it.role == "assistant" and it.message is not None), default=-1
    )
    behavior = mismatch_behavior(body, row)
    for item in items:
        if not item.is_thinking:
            running = digest(running, item.key)
            continue
        block = item.block
        signature = block.get("signature") if block.get("type") == "thinking" else block.get("data")
        seal = signer.open(signature)
        if seal is None:
            return invalid(f"{item.path}: Invalid `signature` in `thinking` block")
        text = block.get("thinking")
        if seal.content and content_digest(text if isinstance(text, str) else "") != seal.content:
            what = _MODIFIED if item.message == latest else "Invalid `signature` in `thinking` block"
            return invalid(f"{item.path}: {what}")
        reason = _drop_reason(seal, row, account)
        if reason is None and row.preserved_thinking and _prefix_failed(seal, binding, running, previous):
            if behavior == "error":
                beta = "" if BINDING_BETA in betas else f" {_NEEDS_BETA}"
                why = _what_changed(seal, binding, running, previous)
                return invalid(f"{item.path}: {_BOUND}{beta} {why}")
            reason = "prefix_binding_mismatch"
        if reason is not None:
            binding.transformations.append({"type": "thinking_dropped", "path": item.path, "reason": reason})
        previous = block_id(str(signature))
    binding.prefix, binding.previous = running, previous
    return binding


def _drop_reason(seal: Seal, row: ServedModel, account: str) -> str | None:
    if seal.account and seal.account != account:
        return "organization_binding_mismatch"
    if not row.can_read(seal.model):
        return "model_binding_mismatch"
    return None


def _prefix_failed(seal: Seal, binding: Binding, running: str, previous: str) -> bool:
    if (seal.system, seal.tools, seal.prefix) != (binding.system, binding.tools, running):
        return True
    # No thinking block before this one: the earlier ones were removed from the start, which is allowed.
    return bool(previous) and seal.previous != previous


def sign_response(
    blocks: Sequence[dict[str, Any]],
    binding: Binding,
    *,
    row: ServedModel,
    account: str,
    omitted: bool,
    signer: Signer,
    request_index: int,
) -> list[dict[str, Any]]:
    """`blocks` (the response's content) with each thinking block signed and, under `omitted`, its text emptied."""
    running, previous = binding.prefix, binding.previous
    signed: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        if block.get("type") != "thinking":
            running = digest(running, Item("messages", "assistant", "", block).key)
            signed.append(block)
            continue
        text = "" if omitted else str(block.get("thinking", ""))
        seal = Seal(
            model=row.id,
            account=account if row.account_bound else "",
            system=binding.system,
            tools=binding.tools,
            prefix=running,
            previous=previous,
            content="" if omitted else content_digest(text),
            nonce=f"{request_index}.{position}",
        )
        signature = signer.sign(seal)
        signed.append({**block, "thinking": text, "signature": signature})
        previous = block_id(signature)
    return signed
