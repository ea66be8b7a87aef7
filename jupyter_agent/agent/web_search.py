"""Anthropic's server-side web search in the loop: its blocks as cards, citations as links, searches counted and
priced.

The API streams a search as a `server_tool_use` block (the query) and a `web_search_tool_result` block (the
pages, with encrypted content the API needs back); both stay in the conversation exactly as they came, as do
cited text blocks with their `citations` (an assistant turn is never rewritten). Once the tool was declared it
stays in the conversation's tool list; when it may not run any more (denied since, or this run used its
`max_uses` searches) the model is told with a `tool_removal` (updates.py), and the blocks in the history stay
valid because the tool is still declared.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from ..base.json_values import is_array, is_object
from ..base.result import ToolResult
from ..builtin_tools.web.search import WebSearchTool
from ..masking import shorten
from .events import ToolFinished, ToolStarted, Usage

#: USD per search: $10 per 1,000 searches (Anthropic's pricing page), on top of the tokens.
PRICE_PER_SEARCH_USD = 0.01
#: Server tools the API runs, by the name it calls them, and the name the cards (and rules) use.
SERVER_TOOL_NAMES = {"web_search": WebSearchTool.name}
_MAX_TITLE = 60


def search_cost(usage: Usage) -> float:
    return usage.web_searches * PRICE_PER_SEARCH_USD


@dataclass
class ServerCalls:
    """The server tool calls of one streamed turn: a card starts with the query and finishes with the pages."""

    started: dict[str, tuple[str, dict[str, Any], float]] = field(
        default_factory=dict[str, tuple[str, dict[str, Any], float]]
    )

    def start(self, block: dict[str, Any]) -> ToolStarted:
        name = SERVER_TOOL_NAMES.get(str(block.get("name")), str(block.get("name")))
        tool_input: dict[str, Any] = block.get("input") or {}
        self.started[str(block.get("id"))] = (name, tool_input, time.monotonic())
        return ToolStarted(call_id=str(block.get("id")), name=name, input=tool_input, kind="read")

    def finish(self, block: dict[str, Any]) -> ToolFinished | None:
        call_id = str(block.get("tool_use_id"))
        known = self.started.pop(call_id, None)
        if known is None:
            return None
        name, tool_input, began = known
        query = str(tool_input.get("query", ""))
        content = block.get("content")
        searched = block.get("type") == "web_search_tool_result"
        return ToolFinished(
            call_id=call_id,
            name=name,
            title=f"{name} {query}".strip(),
            kind="read",
            result=search_result(content) if searched else server_result(content),
            duration=time.monotonic() - began,
            decision=None,
        )

    def unfinished(self, why: str) -> list[ToolFinished]:
        """Cards of searches whose results never came (the stream stopped): finished as interrupted."""
        done = [
            ToolFinished(
                call_id=call_id,
                name=name,
                title=name,
                kind="read",
                result=ToolResult.error("INTERRUPTED", why),
                duration=time.monotonic() - began,
                decision=None,
            )
            for call_id, (name, _, began) in self.started.items()
        ]
        self.started.clear()
        return done


def server_result(content: Any) -> ToolResult:
    """The card's result of a call the API ran itself other than a search (code execution, web fetch, an MCP
    server, the advisor): its error code, its output (stdout, text blocks), or its kind."""
    if is_object(content):
        code = content.get("error_code")
        if code is not None:
            return ToolResult.error("EXECUTION_ERROR", f"the server tool failed: {code}")
        said = str(content.get("stdout") or content.get("text") or content.get("url") or "")
        return ToolResult.ok(shorten(said, 2_000) or str(content.get("type", "done")), summary="done")
    parts = (
        [str(b.get("text", "")) for b in content if is_object(b)]
        if is_array(content)
        else [str(content or "")]
    )
    return ToolResult.ok(shorten("\n".join(p for p in parts if p), 2_000) or "done", summary="done")


def search_result(content: Any) -> ToolResult:
    """The card's result: one line per page (title, then URL), or the API's error code."""
    if is_object(content):
        code = str(content.get("error_code", "unavailable"))
        return ToolResult.error("EXECUTION_ERROR", f"the web search failed: {code}")
    pages = [page for page in content if is_object(page)] if is_array(content) else []
    lines: list[str] = []
    for number, page in enumerate(pages, 1):
        age = f" ({page['page_age']})" if page.get("page_age") else ""
        lines += [f"{number}. {page.get('title') or '(no title)'}{age}", f"   {page.get('url', '')}"]
    count = f"{len(pages)} result{'s' if len(pages) != 1 else ''}"
    return ToolResult.ok("\n".join(lines) or "no results", summary=count)


# -- citations ---------------------------------------------------------------------------------------------


def _link_text(title: str) -> str:
    """A title as Markdown link text that cannot close the link or start markup."""
    title = " ".join(title.split())
    title = shorten(title, _MAX_TITLE)
    return "".join(f"\\{c}" if c in "\\[]()*_`<>!#|~&" else c for c in title)


def _link_target(url: str) -> str | None:
    """An http(s) URL with the characters that could end a Markdown link destination escaped; None otherwise."""
    if urlsplit(url.strip()).scheme.lower() not in ("http", "https"):
        return None
    return quote(url.strip(), safe=":/?#[]@!$&'*+,;=%~-._")


def citation_links(citations: Sequence[Any]) -> str:
    """` ([Title](https://…), [Other](https://…))` for a cited text block: each source once, web pages only."""
    links: list[str] = []
    seen: set[str] = set()
    for citation in citations:
        if not is_object(citation) or citation.get("type") != "web_search_result_location":
            continue
        target = _link_target(str(citation.get("url", "")))
        if target is None or target in seen:
            continue
        seen.add(target)
        title = str(citation.get("title") or urlsplit(target).netloc)
        links.append(f"[{_link_text(title)}]({target})")
    return f" ({', '.join(links)})" if links else ""
