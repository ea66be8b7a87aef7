"""A Messages API request's JSON body, masked at send time, with each stored message encoded once.

Why encoded once: the `anthropic` SDK copies (`copy_tree`) and JSON-encodes the whole body on every request, and a
long day's conversation makes that the part of a run that grows (at run 200: ~85 ms a request, measured by
`benchmarks/long_session_bench.py --profile`). The conversation keeps each message's JSON text from the first
request that sent it (`MessageStore._encoded_texts`), so a request encodes only what is new, and `ModelClient`
hands the SDK the finished bytes (its `post(..., content=...)`), which it sends as they are.

Why masked here: this is the model's sink. Every piece of a request — system prompt, tools, each message — passes
`masked_value` with the secrets known *now*, so a value that became a secret after it was read (an environment
variable set after the run that read it, a credential registered later) is not sent in any later request, even
though the tool result holding it was stored before. A message's kept text remembers the scanner it was masked
with; when the secrets change, every kept text is masked again (`MessageStore._encoded_texts`).

Opaque values are never masked: thinking signatures, redacted thinking, encrypted search results and base64 media
are not text a secret can be read from, and changing one byte of them breaks the block.

The text is what the SDK itself would send: its encoder's settings (compact separators, UTF-8 kept, no NaN).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, cast

from ..secret_scan import SecretScanner

#: The SDK's encoder settings (`anthropic._utils._json.encoder`): the same bytes for the same value.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)

#: Keys whose string values are opaque to a reader (and bound by the API): never masked.
_OPAQUE_KEYS = frozenset({"signature", "encrypted_content", "encrypted_index"})
#: Block types whose `data` is opaque (a redacted thinking block's ciphertext; base64 media in a source).
_OPAQUE_DATA_TYPES = frozenset({"redacted_thinking", "base64"})


def encode(value: Any) -> str:
    return _ENCODER.encode(value)


def masked_value(scanner: SecretScanner, value: Any) -> Any:
    """A request value (a message, the system prompt, the tools) with every readable string masked by `scanner`;
    opaque strings (signatures, ciphertext, base64 media) kept as they are."""
    if isinstance(value, str):
        return scanner.mask(value)
    if isinstance(value, Mapping):
        items = cast("Mapping[str, Any]", value)
        kind = items.get("type")
        opaque_data = isinstance(kind, str) and kind in _OPAQUE_DATA_TYPES
        return {
            key: item
            if key in _OPAQUE_KEYS or (key == "data" and opaque_data)
            else masked_value(scanner, item)
            for key, item in items.items()
        }
    if isinstance(value, list | tuple):
        return [masked_value(scanner, item) for item in cast("Iterable[Any]", value)]
    return value


def masked_request(scanner: SecretScanner, params: Mapping[str, Any]) -> dict[str, Any]:
    """The whole request masked (for the paths the SDK encodes: Bedrock, Vertex, a request changed after the
    conversation made it, token counting)."""
    return {key: (item if key == "betas" else masked_value(scanner, item)) for key, item in params.items()}


class EncodedMessages(list[dict[str, Any]]):
    """The request's messages — a list like any other for whatever reads them — and their masked JSON text. Any
    copy that changes them (`without_unsupported`) is a plain list, so its request is masked and encoded whole.

    `remasked_sent`: masking with the secrets known now changed a message an earlier request had already sent (a
    secret became known after it was sent); the request's thinking binding must then let the API drop the blocks
    the changed prefix invalidates."""

    def __init__(self, messages: Iterable[dict[str, Any]], text: str, *, remasked_sent: bool = False) -> None:
        super().__init__(messages)
        self.text = text
        self.remasked_sent = remasked_sent


def encoded_body(params: Mapping[str, Any], scanner: SecretScanner) -> bytes | None:
    """The body of `params` (without `betas`, which go as a header) masked, with the messages' masked text spliced
    in; None when the messages carry no text of their own (then the request is masked and the SDK encodes it)."""
    messages = params.get("messages")
    if not isinstance(messages, EncodedMessages):
        return None
    rest = encode(masked_value(scanner, {k: v for k, v in params.items() if k not in ("messages", "betas")}))
    opening = rest[:-1] + "," if rest != "{}" else "{"  # cut-ok: the closing brace of a JSON object, no text
    return f'{opening}"messages":{messages.text}}}'.encode()
