"""Signatures of the thinking blocks the scripted server emits: what each block is bound to, sealed with an HMAC.

A signature is `<base64url JSON of a Seal>.<base64url HMAC-SHA256>`. The seal records what the real API binds a
block to (docs "Preserved thinking"): the model that produced it, the account (a hash of the API key, for the models
whose blocks are account-bound), the digests of `system`, `tools` and the messages before the block (its prefix;
earlier thinking blocks are not part of it), the chain of thinking blocks that came before it (the gap rule), its own
text unless that was sent empty (`display: "omitted"`, where text put in a sent-back block is ignored), and where it
stood in its response's run of consecutive thinking blocks (the latest assistant turn keeps those runs whole).

The key lives for the process by default, shared by every `ScriptedServer` in it, so a test that resumes a saved
conversation against a new server (a kernel restarted, a second server started) still has valid blocks. A server in
another process (`python -m jupyter_agent.testing`) makes its own key unless given one (`--signing-key`), which is
what the real API does for blocks from another account: they are not readable there.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from dataclasses import asdict, dataclass
from typing import ClassVar

from ...base.json_values import is_object


@dataclass(frozen=True, kw_only=True)
class Seal:
    """What a thinking block is bound to; see the module docstring."""

    model: str
    account: str
    system: str
    tools: str
    prefix: str
    #: Digest of the thinking blocks sent before it, in order (`binding.chain_after`), when it was produced.
    chain: str
    #: Digest of the block's thinking text, or "" when it went out empty (not checked then).
    content: str
    #: Unique per block: "<request index>.<block index>".
    nonce: str
    #: A token of the response that produced it (unique per response).
    response: str = ""
    #: "<position>/<length>" in the response's run of consecutive thinking blocks.
    run: str = ""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def block_id(signature: str) -> str:
    """A short id of a signed block, recorded by the block that follows it."""
    return hashlib.sha256(signature.encode()).hexdigest()[:24]


def content_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def account_of(api_key: str) -> str:
    """The account an API key stands for: a hash, so the key itself is never in a signature."""
    return hashlib.sha256(api_key.encode()).hexdigest()[:16]


class Signer:
    """Seals and opens signatures with an HMAC key (by default one key for every server in the process)."""

    _process_key: ClassVar[bytes] = secrets.token_bytes(32)

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key if key is not None else Signer._process_key

    def sign(self, seal: Seal) -> str:
        payload = _b64(json.dumps(asdict(seal), sort_keys=True, separators=(",", ":")).encode())
        mac = hmac.new(self._key, payload.encode(), hashlib.sha256).digest()
        return f"{payload}.{_b64(mac)}"

    def open(self, signature: object) -> Seal | None:
        """The seal of a signature this key made, or None (empty, truncated, altered, or made elsewhere)."""
        if not isinstance(signature, str) or signature.count(".") != 1:
            return None
        payload, mac = signature.split(".")
        expected = hmac.new(self._key, payload.encode(), hashlib.sha256).digest()
        try:
            if not hmac.compare_digest(_unb64(mac), expected):
                return None
            fields = json.loads(_unb64(payload))
        except (binascii.Error, ValueError):
            return None
        if not is_object(fields):
            return None
        try:
            return Seal(**{k: str(v) for k, v in fields.items()})
        except TypeError:
            return None
