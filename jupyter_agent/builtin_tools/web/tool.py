"""WebFetch: fetch a URL, turn its HTML into Markdown, and hand it to the model with what to look for.

As the Claude Agent SDK's WebFetch does, an `http://` URL is fetched as `https://` (but for a host that is an
address or a single local name, which seldom serves TLS), and a page is kept for 15 minutes per URL, so asking
the same page again with another prompt costs no second download. The permission is checked at every call
(the Dispatcher asks before `run`), the cache only saves the download.

The page is then answered against the call's `prompt` by the run's small model (`extract.py`), and the main
model gets that answer, not up to 100,000 characters of page; with `web_fetch_extract` off, outside a run, or
when the small model fails (said in the result), the page itself goes to the model, cut, as before.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

from pydantic import Field

from ...base.errors import ToolError
from ...base.result import ToolResult
from ...masking import cap_text
from ...tools.context import ToolContext
from ...tools.core import Tool, ToolAnnotations, ToolInput
from .extract import Extract, extract_answer
from .http import Fetched, Redirected, check_url, fetch, host_of
from .markdown import html_to_markdown

#: Bytes read from the server at most; the rest of a bigger page is not downloaded.
MAX_FETCH_BYTES = 5 * 1024 * 1024
#: Characters of Markdown passed on (head and tail kept).
MAX_MARKDOWN_CHARS = 100_000
FETCH_TIMEOUT = 30.0
#: Seconds a fetched page is answered from memory (per URL, after the https upgrade).
CACHE_SECONDS = 15 * 60
_TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-yaml")

DESCRIPTION = """\
Fetch a web page and read it as Markdown (HTML is converted; scripts, styles and hidden parts are dropped).
- url: a full http(s) URL (http:// is fetched as https://). prompt: what you want to know from the page: \
a small, fast model reads the page and answers it, and you get its answer (or the page itself, when that is off).
- The user is asked before a fetch unless a rule allows the domain (WebFetch(domain:example.com)).
- A redirect to another host is not followed: the result gives the new URL; fetch it with a new call.
- Only public addresses are fetched: local, private and cloud-metadata addresses are refused unless the user \
named the host in a rule.
- Long pages are cut (the start and the end are kept). Binary content (images, PDFs, archives) is refused.
- A page fetched in the last 15 minutes is answered from memory."""


class WebFetchInput(ToolInput):
    url: str = Field(min_length=1)
    """The full URL to fetch (http or https)."""
    prompt: str = Field(min_length=1)
    """What to look for in the page."""


def upgraded(url: str) -> str:
    """`url` with `http://` made `https://`, unless its host is an IP address or a name without a dot
    (`localhost`, a machine on the local network): those rarely serve TLS, and reaching them needs a rule anyway."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme != "http" or "." not in host or _is_address(host):
        return url
    return urlunsplit(parts._replace(scheme="https"))


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return host.replace(
            ".", ""
        ).isdigit()  # `127.1`, `2130706433`: numbers the resolver reads as addresses
    return True


def _decode(fetched: Fetched) -> str:
    try:
        return fetched.body.decode(fetched.charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        return fetched.body.decode("utf-8", errors="replace")


def page_text(fetched: Fetched) -> tuple[str, str]:
    """(title, text) of the page: Markdown for HTML, the text itself for other text types."""
    kind = fetched.content_type
    looks_like_html = fetched.body.lstrip()[:1] == b"<"  # cut-ok: a sniff
    if kind in ("text/html", "application/xhtml+xml") or (not kind and looks_like_html):
        return html_to_markdown(_decode(fetched))
    if kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(("+json", "+xml")):
        return "", _decode(fetched)
    raise ToolError(
        "BINARY_FILE",
        f"{fetched.url} is {kind or 'of an unknown type'}, not a text page; WebFetch reads HTML and text only",
    )


class WebFetch(Tool[WebFetchInput]):
    name = "WebFetch"
    description = DESCRIPTION
    kind = "other"
    #: Reaches outside the machine: it asks unless a rule allows the domain.
    annotations = ToolAnnotations(read_only=False, destructive=False, idempotent=True, open_world=True)
    Input = WebFetchInput
    rule_field = "url"

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, extract: bool = True) -> None:
        self.clock = clock
        #: Answer the prompt with the run's small model (`web_fetch_extract`).
        self.extract = extract
        #: URL (after the upgrade) → (when it was fetched, what came): the 15-minute cache.
        self._pages: dict[str, tuple[float, Fetched | Redirected]] = {}

    def rule_subject(self, params: WebFetchInput, ctx: ToolContext) -> str | None:
        """`domain:<host>`, what `WebFetch(domain:example.com)` rules match (`*` globs, e.g. `domain:*.python.org`)."""
        host = host_of(params.url)
        return f"domain:{host}" if host else None

    def title(self, params: WebFetchInput, ctx: ToolContext) -> str:
        return f"WebFetch {params.url}"

    async def run(self, params: WebFetchInput, ctx: ToolContext) -> ToolResult:
        outcome = await self._fetched(upgraded(check_url(params.url)), ctx)
        if isinstance(outcome, Redirected):
            return ToolResult.ok(
                f"{outcome.url} redirects ({outcome.status}) to another host: {outcome.location}\n"
                "It was not followed. To read it, call WebFetch again with that URL and the same prompt.",
                summary=f"redirects to {host_of(outcome.location)}",
            )
        title, text = page_text(outcome)  # a cached binary page is refused again, as it was
        cut = " (only the first part was downloaded: the page is larger)" if outcome.truncated else ""
        header = f"Fetched {outcome.url}{cut}" + (f"\nTitle: {title}" if title else "")
        body = cap_text(text, MAX_MARKDOWN_CHARS) if text else "(the page has no readable text)"
        summary = f"{host_of(outcome.url)} · {len(text):,} chars"
        small = ctx.run.small_model
        if self.extract and small is not None and text:
            extracted = await extract_answer(small, page=body, prompt=params.prompt)
            if isinstance(extracted, Extract):
                return ToolResult.ok(f"{header}\n\n{extracted.text}", summary=f"{summary} · extract")
            header += f"\n{extracted}"
        return ToolResult.ok(f"{header}\nLook in it for: {params.prompt}\n\n{body}", summary=summary)

    async def _fetched(self, url: str, ctx: ToolContext) -> Fetched | Redirected:
        """The page at `url`: from the cache when fetched less than CACHE_SECONDS ago, else downloaded."""
        now = self.clock()
        self._pages = {u: kept for u, kept in self._pages.items() if now - kept[0] < CACHE_SECONDS}
        if url in self._pages:
            return self._pages[url][1]
        outcome = await fetch(url, max_bytes=MAX_FETCH_BYTES, timeout=FETCH_TIMEOUT, policy=ctx.policy)
        self._pages[url] = (now, outcome)
        return outcome
