"""One capped HTTP GET for WebFetch: timeouts, a size cap, and redirects followed only within the same host.

A redirect to another host is not followed: the model is told where it leads and can fetch that URL with a
new call, which is checked against the permission rules (`WebFetch(domain:…)`) like any other. No
credentials are sent: httpx (0.24 on) no longer applies ~/.netrc on its own, and no cookies are kept.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

from ...base.errors import ToolError

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
    return (urlsplit(url).hostname or "").lower()


def check_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ToolError(
            "INVALID_ARGS", f"'{url}' is not an http(s) URL; pass a full URL such as https://example.com/page"
        )
    if parts.username or parts.password:
        raise ToolError(
            "INVALID_ARGS", "the URL carries credentials (user:password@); WebFetch does not send any"
        )
    return url


async def fetch(url: str, *, max_bytes: int, timeout: float) -> Fetched | Redirected:
    """GET `url`, following same-host redirects; `TIMEOUT` / `NETWORK_ERROR` / `HTTP_ERROR` otherwise."""
    start_host = host_of(check_url(url))
    limits = httpx.Timeout(timeout, connect=min(timeout, 10.0))
    try:
        async with (
            asyncio.timeout(timeout),
            httpx.AsyncClient(
                timeout=limits, follow_redirects=False, headers={"User-Agent": USER_AGENT}
            ) as client,
        ):
            for _ in range(MAX_REDIRECTS + 1):
                async with client.stream("GET", url) as response:
                    if response.is_redirect and "location" in response.headers:
                        target = urljoin(url, response.headers["location"])
                        if host_of(target) != start_host or urlsplit(target).scheme not in ("http", "https"):
                            return Redirected(url=url, location=target, status=response.status_code)
                        url = target
                        continue
                    if response.status_code >= 400:
                        raise ToolError(
                            "HTTP_ERROR",
                            f"{url} answered {response.status_code} {response.reason_phrase}; check the URL",
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
    except TimeoutError as exc:
        raise ToolError("TIMEOUT", f"{url} did not answer within {timeout:g} s") from exc
    except httpx.TimeoutException as exc:
        raise ToolError("TIMEOUT", f"{url} did not answer within {timeout:g} s") from exc
    except httpx.HTTPError as exc:
        raise ToolError("NETWORK_ERROR", f"could not fetch {url}: {type(exc).__name__}: {exc}") from exc
    raise ToolError("HTTP_ERROR", f"{url} redirected more than {MAX_REDIRECTS} times; stopped following")


async def _read_capped(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            return b"".join(chunks)[:max_bytes], True
    return b"".join(chunks), False
