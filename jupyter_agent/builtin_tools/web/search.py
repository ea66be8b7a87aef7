"""WebSearch: Anthropic's server-side web search tool, offered to the model under Claude Code's name.

The search runs on Anthropic's side, inside the model's turn: the request carries the tool's definition
(`web_search_20250305`, with `max_uses` and the allowed or blocked domains), the answer streams
`server_tool_use` and `web_search_tool_result` blocks, and nothing passes through the Dispatcher — so a search
cannot ask for approval. It is offered only when the `enable_web_search` setting is on or an allow rule names
`WebSearch`; a deny rule (or an ask rule, since it could not ask) takes it away, and an endpoint that does not
run server tools (Bedrock) is never offered it (`web_search_withheld`). Each search is billed by
Anthropic on top of the tokens (`agent/web_search.py` counts and prices them).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from ...base.result import ToolResult
from ...permissions.policy import Rule
from ...tools.context import ToolContext
from ...tools.core import AnyTool, Tool, ToolAnnotations, ToolInput

#: The API's tool type and the name the model calls it by.
WEB_SEARCH_TYPE = "web_search_20250305"
API_NAME = "web_search"
#: Searches one run may make unless the `web_search_max_uses` setting says otherwise.
DEFAULT_MAX_USES = 5

DESCRIPTION = """\
Search the web (run by Anthropic's API) and read the results; cite the pages you use. Use it for facts that \
change or that you do not know: current versions, documentation, error messages, news."""


@dataclass(frozen=True, kw_only=True)
class WebSearchConfig:
    """What the tool definition sends: searches per request at most (also the run's cap, `agent/web_search.py`), and
    the domains results may (or may not) come from."""

    max_uses: int = DEFAULT_MAX_USES
    allowed_domains: tuple[str, ...] = ()
    blocked_domains: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.max_uses < 1:
            raise ValueError(f"web_search_max_uses must be at least 1, got {self.max_uses}")
        if self.allowed_domains and self.blocked_domains:
            raise ValueError(
                "web search takes allowed domains or blocked domains, not both (the API refuses the pair); "
                "clear one of web_search_allowed_domains and web_search_blocked_domains"
            )


class WebSearchInput(ToolInput):
    query: str = Field(min_length=2)
    """What to search for."""


class WebSearchTool(Tool[WebSearchInput]):
    name = "WebSearch"
    description = DESCRIPTION
    kind = "read"
    annotations = ToolAnnotations(read_only=True, destructive=False, idempotent=True, open_world=True)
    Input = WebSearchInput

    def __init__(self, config: WebSearchConfig | None = None) -> None:
        self.config = config or WebSearchConfig()

    def to_param(self) -> dict[str, Any]:
        """The server tool's definition (the same bytes for the same config: the prompt cache holds)."""
        param: dict[str, Any] = {"type": WEB_SEARCH_TYPE, "name": API_NAME, "max_uses": self.config.max_uses}
        if self.config.allowed_domains:
            param["allowed_domains"] = list(self.config.allowed_domains)
        if self.config.blocked_domains:
            param["blocked_domains"] = list(self.config.blocked_domains)
        return param

    async def run(self, params: WebSearchInput, ctx: ToolContext) -> ToolResult:
        """Never called for a real search (the API runs it); a client-side call by this name is refused."""
        return ToolResult.error(
            "NOT_AVAILABLE",
            "WebSearch runs on Anthropic's side, inside your turn; it is not called as a client tool",
        )


def web_search_tools() -> list[AnyTool]:
    return [WebSearchTool()]


#: Where Anthropic's server tools run: its own API (a `base_url` is taken to reach it, as a gateway in front of it
#: does) and Vertex AI. Bedrock does not run them: a request declaring one is refused.
SERVER_TOOL_PROVIDERS = frozenset({"anthropic", "vertex"})


def web_search_withheld(ask: Iterable[Rule], *, provider: str) -> str | None:
    """Why WebSearch, asked for, is not offered to this run (`%agent tools` says it), or None when it is."""
    if provider not in SERVER_TOOL_PROVIDERS:
        return (
            f"the {provider} endpoint (AgentMagics.provider) does not run Anthropic's server tools; "
            "WebFetch fetches pages here"
        )
    if any(rule.names(WebSearchTool.name) for rule in ask):
        return "an ask rule names it, and a search runs on Anthropic's side, where it cannot ask"
    return None


def configure_web_search(tools: Iterable[AnyTool], config: WebSearchConfig) -> list[AnyTool]:
    """The pool source's tools with `config` applied."""
    configured: list[AnyTool] = []
    for tool in tools:
        if isinstance(tool, WebSearchTool):
            tool.config = config
        configured.append(tool)
    return configured
