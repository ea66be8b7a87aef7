"""One capped HTTP GET for WebFetch: timeouts, a size cap, and redirects followed only within the same host.

A redirect to another host is not followed: the model is told where it leads and can fetch that URL with a
new call, which is checked against the permission rules (`WebFetch(domain:…)`) like any other. No
credentials are sent: httpx (0.24 on) no longer applies ~/.netrc on its own, and no cookies are kept.

Every request, the first and each redirect, connects to an address `addresses.checked_address` resolved and
checked (public only, unless a rule names the host): the URL's host is replaced by that address, the `Host`
header and TLS's server name keep the name, so certificates are still checked against it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx

from ...base.errors import ToolError
from ...base.hosts import canonical_host
from .addresses import checked_address

if TYPE_CHECKING:
    from ...permissions.policy import PermissionPolicy

MAX_REDIRECTS = 5
USER_AGENT = "jupyter-agent-webfetch/0.1 (+https://github.com)"


@dataclass(frozen=True, kw_only=True)
class Fetched:
    url: str
    status: int
    content_type: str
    charset: str | None
    body: bytes
    #: The body was longer than the cap and was cut there.
    truncated: bool


@dataclass(frozen=True, kw_only=True)
class Redirected:
    """The page redirects to another host; not followed."""

    url: str
    location: str
    status: int


def host_of(url: str) -> str:
    """The URL's host in canonical form (`127.1` and `localhost` are `127.0.0.1`), as rules compare it."""
    return canonical_host(urlsplit(url).hostname or "")


def check_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ToolError(
            "INVALID_ARGS", f"'{url}' is not an http(s) URL; pass a full URL such as https://example.com/page"
        )
    if "@" in parts.netloc:  # user information, even an empty one (`http://@host/`)
        raise ToolError(
            "INVALID_ARGS", "the URL carries credentials (user:password@); WebFetch does not send any"
        )
    return url


def _pinned(url: str, address: str) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The URL with its host replaced by the checked address, the Host header, and TLS's server name.

    `check_url` refused user information, so the URL's netloc is the host (and port) as written."""
    parts = urlsplit(url)
    shown = f"[{address}]" if ":" in address else address
    netloc = f"{shown}:{parts.port}" if parts.port is not None else shown
    extensions: dict[str, Any] = {"sni_hostname": parts.hostname} if parts.scheme == "https" else {}
    return urlunsplit(parts._replace(netloc=netloc)), {"Host": parts.netloc}, extensions


async def _open(client: httpx.AsyncClient, url: str, policy: PermissionPolicy | None) -> httpx.Response:
    address = await checked_address(urlsplit(url).hostname or "", policy)
    target, headers, extensions = _pinned(url, address)
    request = client.build_request("GET", target, headers=headers, extensions=extensions)
    return await client.send(request, stream=True)


async def fetch(
    url: str, *, max_bytes: int, timeout: float, policy: PermissionPolicy | None = None
) -> Fetched | Redirected:
    """GET `url`, following same-host redirects; `TIMEOUT` / `NETWORK_ERROR` / `HTTP_ERROR` /
    `ADDRESS_NOT_ALLOWED` otherwise."""
    start_host = host_of(check_url(url))
    limits = httpx.Timeout(timeout, connect=min(timeout, 10.0))
    try:
        async with (
            asyncio.timeout(timeout),
            # httpx follows no redirect on its own: the loop below does, checking each one
            httpx.AsyncClient(timeout=limits, headers={"User-Agent": USER_AGENT}) as client,
        ):
            for _ in range(MAX_REDIRECTS + 1):
                response = await _open(client, url, policy)
                try:
                    outcome = await _answer(response, url, start_host, max_bytes)
                finally:
                    await response.aclose()
                if isinstance(outcome, str):
                    url = outcome  # a same-host redirect: checked again on the next request
                    continue
                return outcome
    except (TimeoutError, httpx.TimeoutException) as exc:  # the overall deadline or httpx's own
        raise ToolError("TIMEOUT", f"{url} did not answer within {timeout:g} s") from exc
    except httpx.HTTPError as exc:
        raise ToolError("NETWORK_ERROR", f"could not fetch {url}: {type(exc).__name__}: {exc}") from exc
    raise ToolError("HTTP_ERROR", f"{url} redirected more than {MAX_REDIRECTS} times; stopped following")


async def _answer(
    response: httpx.Response, url: str, start_host: str, max_bytes: int
) -> Fetched | Redirected | str:
    """The page, a redirect to another host, or the URL of a same-host redirect to follow."""
    if response.is_redirect and "location" in response.headers:
        target = urljoin(url, response.headers["location"])
        if host_of(target) != start_host or urlsplit(target).scheme not in ("http", "https"):
            return Redirected(url=url, location=target, status=response.status_code)
        return target
    if response.status_code >= 400:
        raise ToolError(
            "HTTP_ERROR", f"{url} answered {response.status_code} {response.reason_phrase}; check the URL"
        )
    body, truncated = await _read_capped(response, max_bytes)
    content_type = response.headers.get("content-type", "")
    return Fetched(
        url=url,
        status=response.status_code,
        content_type=content_type.split(";")[0].strip().lower(),
        charset=response.charset_encoding,
        body=body,
        truncated=truncated,
    )


async def _read_capped(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            return b"".join(chunks)[:max_bytes], True  # cut-ok: the download cap; cap_text masks the text
    return b"".join(chunks), False
