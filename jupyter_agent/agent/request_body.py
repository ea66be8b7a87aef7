"""A Messages API request's JSON body, with each stored message encoded once.

Why: the `anthropic` SDK copies (`copy_tree`) and JSON-encodes the whole body on every request, and a long day's
conversation makes that the part of a run that grows (at run 200: ~85 ms a request, measured by
`benchmarks/long_session_bench.py --profile`). The conversation keeps each message's JSON text from the first
request that sent it (`MessageStore._encoded_texts`), so a request encodes only what is new, and `ModelClient`
hands the SDK the finished bytes (its `post(..., content=...)`), which it sends as they are.

The text is what the SDK itself would send: its encoder's settings (compact separators, UTF-8 kept, no NaN).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

#: The SDK's encoder settings (`anthropic._utils._json.encoder`): the same bytes for the same value.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode(value: Any) -> str:
    return _ENCODER.encode(value)


class EncodedMessages(list[dict[str, Any]]):
    """The request's messages — a list like any other for whatever reads them — and their JSON text. Any copy
    that changes them (`without_unsupported`) is a plain list, so its request is encoded the SDK's way."""

    def __init__(self, messages: Iterable[dict[str, Any]], text: str) -> None:
        super().__init__(messages)
        self.text = text


def encoded_body(params: Mapping[str, Any]) -> bytes | None:
    """The body of `params` (without `betas`, which go as a header) with the messages' text spliced in; None when
    the messages carry no text of their own (then the SDK encodes the request)."""
    messages = params.get("messages")
    if not isinstance(messages, EncodedMessages):
        return None
    rest = encode({k: v for k, v in params.items() if k not in ("messages", "betas")})
    opening = rest[:-1] + "," if rest != "{}" else "{"  # cut-ok: the closing brace of a JSON object, no text
    return f'{opening}"messages":{messages.text}}}'.encode()
