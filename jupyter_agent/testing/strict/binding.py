"""The binding checks on thinking blocks sent back, and the binding of the thinking blocks a response carries.

Per the docs ("Preserved thinking", "Prefix checks on thinking blocks", "Thinking troubleshooting"), in this order for
the `thinking` / `redacted_thinking` blocks of a request:

1. a signature that is empty, truncated, altered or not ours is always a 400 (``Invalid `signature` in `thinking`
   block``), and so is edited text in the latest assistant message (``… cannot be modified …``);
2. in the latest assistant turn (consecutive assistant messages joined), each run of consecutive thinking blocks a
   response produced comes back whole and in order, or not at all: "you can't rearrange, edit, or partially drop
   them" (the same ``… cannot be modified …`` 400, which `drop_block` does not turn into a drop);
3. a block from another account (Sonnet 5.5 / Haiku 5.5 blocks are account-bound) is dropped
   (`organization_binding_mismatch`), then a block the model cannot read is dropped (`model_binding_mismatch`);
   neither is an error;
4. on a model with preserved thinking, the prefix check: `system`, `tools` and the messages before the block must be
   what they were when it was produced (a tool appended to `tools` with `defer_loading: true` is allowed), and the
   thinking blocks sent before it must be those it followed, less any removed from the start: remove blocks from
   the start or the end, never from the middle, and never put one back. A failure is a 400, or with
   `prefix_mismatch_behavior: "drop_block"` a drop (`prefix_binding_mismatch`). A change invalidates only the
   blocks produced before it; those produced after it stay valid.

Drops are reported in the response's `input_transformations` only under the `thinking-binding-controls-2026-08-01`
beta, as the API does; without it they happen all the same.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...base.json_values import is_object
from .canonical import Item, array, canonical_json, digest, message_items, section_digest
from .joined import JoinedTurn, Placed, joined_turns, latest_assistant
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


#: The chain of a conversation with no thinking block before (see `Seal.chain`).
EMPTY_CHAIN = digest("thinking chain")


@dataclass
class Binding:
    """What the checks found in a request, and what its response's blocks are bound to."""

    system: str
    tools: str
    #: Digest of the request's messages (thinking blocks left out): the prefix of the response's first block.
    prefix: str
    #: The chain of the thinking blocks the request sent, the one the response's first block follows.
    chain: str = EMPTY_CHAIN
    #: Digests of `tools` a block may have been produced with: this request's, and the same with the deferred
    #: tools at its end left out (appending a deferred tool is not an edit).
    tools_accepted: frozenset[str] = frozenset()
    #: `input_transformations` entries, in request order.
    transformations: list[dict[str, str]] = field(default_factory=lambda: [])


def mismatch_behavior(body: dict[str, Any], row: ServedModel) -> str:
    thinking = body.get("thinking")
    options = thinking.get("block_binding") if is_object(thinking) else None
    chosen = options.get("prefix_mismatch_behavior") if is_object(options) else None
    return chosen if chosen in ("error", "drop_block") else row.prefix_mismatch_default


def _accepted_tools(body: dict[str, Any]) -> frozenset[str]:
    """The digest of `tools`, and of `tools` without each tail of deferred definitions (docs: "Add a tool with
    `defer_loading: true` that nothing has referenced yet" keeps later thinking valid)."""
    tools = array(body.get("tools"))
    accepted = {section_digest(body, "tools")}
    end = len(tools)
    while end and is_object(tools[end - 1]) and tools[end - 1].get("defer_loading") is True:
        end -= 1
        accepted.add(digest("tools", canonical_json(tools[:end])))
    return frozenset(accepted)


def _what_changed(seal: Seal, binding: Binding, running: str) -> str:
    """The sentence the API adds for people and logs (our wording; the docs say it names what changed)."""
    if seal.system != binding.system:
        return "The `system` prompt differs from the one this block was created with."
    if seal.tools not in binding.tools_accepted:
        return "The `tools` list differs from the one this block was created with."
    if seal.prefix != running:
        return "Content that preceded this block when it was created differs in this request."
    return (
        "An earlier thinking block is missing or out of order: the thinking blocks before this one are not those "
        "it followed when it was created (one was left out between others, moved, or put back)."
    )


def _signature(block: dict[str, Any]) -> object:
    return block.get("signature") if block.get("type") == "thinking" else block.get("data")


def bind_request(
    body: dict[str, Any], row: ServedModel, *, account: str, betas: frozenset[str], signer: Signer
) -> Binding | Rejection:
    """Check every thinking block of `body` for `row`; a `Rejection` for the first one that fails with an error."""
    binding = Binding(
        system=section_digest(body, "system"),
        tools=section_digest(body, "tools"),
        prefix="",
        tools_accepted=_accepted_tools(body),
    )
    messages = array(body.get("messages"))
    items = list(message_items(messages))
    latest = latest_assistant(joined_turns(messages))
    seals = _opened(items, set(latest.messages) if latest else set[int](), signer)
    if isinstance(seals, Rejection):
        return seals
    if latest is not None:
        problem = _check_runs(latest, seals)
        if problem is not None:
            return problem
    behavior = mismatch_behavior(body, row)
    running = digest("messages")
    chain: str | None = None  # the first block sent starts from its own record: blocks may go from the start
    for item in items:
        if not item.is_thinking:
            running = digest(running, item.key)
            continue
        seal = seals[item.path]
        chain = seal.chain if chain is None else chain
        reason = _drop_reason(seal, row, account)
        if reason is None and row.preserved_thinking and _prefix_failed(seal, binding, running, chain):
            if behavior == "error":
                beta = "" if BINDING_BETA in betas else f" {_NEEDS_BETA}"
                why = _what_changed(seal, binding, running)
                return invalid(f"{item.path}: {_BOUND}{beta} {why}")
            reason = "prefix_binding_mismatch"
        if reason is not None:
            binding.transformations.append({"type": "thinking_dropped", "path": item.path, "reason": reason})
        chain = digest(chain, block_id(str(_signature(item.block))))
    binding.prefix, binding.chain = running, chain or EMPTY_CHAIN
    return binding


def _opened(items: Sequence[Item], latest: set[int], signer: Signer) -> dict[str, Seal] | Rejection:
    """The seal of every thinking block, by path; the 400 for a signature not ours or text edited."""
    seals: dict[str, Seal] = {}
    for item in items:
        if not item.is_thinking:
            continue
        block = item.block
        seal = signer.open(_signature(block))
        if seal is None:
            return invalid(f"{item.path}: Invalid `signature` in `thinking` block")
        text = block.get("thinking")
        if seal.content and content_digest(text if isinstance(text, str) else "") != seal.content:
            what = _MODIFIED if item.message in latest else "Invalid `signature` in `thinking` block"
            return invalid(f"{item.path}: {what}")
        seals[item.path] = seal
    return seals


def _run_of(seal: Seal) -> tuple[int, int] | None:
    position, _, length = seal.run.partition("/")
    return (int(position), int(length)) if position.isdigit() and length.isdigit() else None


def _check_runs(latest: JoinedTurn, seals: dict[str, Seal]) -> Rejection | None:
    """Each run of consecutive thinking blocks in the latest assistant turn is made of whole runs of the responses
    that produced them, each in its order (a paused turn's continuation may start a new run right after one)."""
    expected: tuple[str, int] | None = None  # (response, next position) while a response's run is unfinished
    last: Placed | None = None  # the block before, when it was a thinking block of an unfinished run
    for placed in latest.blocks:
        seal = seals.get(placed.path)
        run = _run_of(seal) if seal is not None else None
        if seal is None or run is None:  # not a thinking block (or signed without run information)
            if last is not None:
                return invalid(f"{last.path}: {_MODIFIED}")  # its run was cut short
            expected = None
            continue
        position, length = run
        if (expected is not None and expected != (seal.response, position)) or (
            expected is None and position
        ):
            return invalid(f"{placed.path}: {_MODIFIED}")
        expected = (seal.response, position + 1) if position + 1 < length else None
        last = placed if expected is not None else None
    return None if last is None else invalid(f"{last.path}: {_MODIFIED}")


def _drop_reason(seal: Seal, row: ServedModel, account: str) -> str | None:
    if seal.account and seal.account != account:
        return "organization_binding_mismatch"
    if not row.can_read(seal.model):
        return "model_binding_mismatch"
    return None


def _prefix_failed(seal: Seal, binding: Binding, running: str, chain: str) -> bool:
    return (
        seal.system != binding.system
        or seal.tools not in binding.tools_accepted
        or seal.prefix != running
        or seal.chain != chain
    )


def _runs(blocks: Sequence[dict[str, Any]]) -> list[str]:
    """ "<position>/<length>" of each block in its run of consecutive thinking blocks ("" for other blocks)."""
    runs = [""] * len(blocks)
    start = 0
    while start < len(blocks):
        if blocks[start].get("type") != "thinking":
            start += 1
            continue
        end = start
        while end < len(blocks) and blocks[end].get("type") == "thinking":
            end += 1
        for position in range(start, end):
            runs[position] = f"{position - start}/{end - start}"
        start = end
    return runs


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
    running, chain = binding.prefix, binding.chain
    response = secrets.token_hex(8)
    runs = _runs(blocks)
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
            chain=chain,
            content="" if omitted else content_digest(text),
            nonce=f"{request_index}.{position}",
            response=response,
            run=runs[position],
        )
        signature = signer.sign(seal)
        signed.append({**block, "thinking": text, "signature": signature})
        chain = digest(chain, block_id(signature))
    return signed
