"""Who may talk to the kernel's MCP server: a request from this machine's own loopback, with the bearer token.

As the MCP specification asks of a local server: a request whose `Origin` is not a loopback origin is refused
with 403 (a page on another site reaching 127.0.0.1 through the user's browser: DNS rebinding), and one without
`Authorization: Bearer <token>`, or with another token, with 401. The token is compared in constant time.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def is_loopback_origin(origin: str) -> bool:
    """`http://127.0.0.1:6274`, `http://localhost:3000`, `http://[::1]`: yes; `https://evil.example`, `null`: no."""
    try:
        parts = urlsplit(origin)
        host = parts.hostname
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not host:
        return False
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class LoopbackGuard:
    """ASGI middleware in front of the MCP app: 403 for a foreign Origin, 401 without the right token."""

    def __init__(self, app: App, *, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        headers = {bytes(k).lower(): bytes(v) for k, v in scope.get("headers", [])}
        origin = headers.get(b"origin")
        if origin is not None and not is_loopback_origin(origin.decode("latin-1")):
            await _refuse(
                send, 403, "Forbidden: the Origin is not a loopback origin (127.0.0.1, localhost, ::1)"
            )
            return
        if not hmac.compare_digest(headers.get(b"authorization", b""), self._expected):
            await _refuse(
                send,
                401,
                "Unauthorized: send 'Authorization: Bearer <token>' with the token `%agent serve` printed",
                extra=[(b"www-authenticate", b'Bearer realm="jupyter-agent"')],
            )
            return
        await self.app(scope, receive, send)


async def _refuse(send: Send, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = text.encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": [*headers, *(extra or [])]})
    await send({"type": "http.response.body", "body": body})
