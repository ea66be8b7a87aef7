"""WebSearch through the real SDK and the scripted server: the server tool's definition, its blocks as cards
and in the conversation (kept exactly as they came), citations as safe links, searches counted and priced, and
the per-run cap told as a tool removal (the tool stays declared, so the history stays valid)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_testkit import HarnessFactory, assert_valid_request

from jupyter_agent.agent.events import RunFinished, TextDelta, ToolFinished, ToolStarted, Usage
from jupyter_agent.agent.pricing import turn_cost
from jupyter_agent.agent.web_search import citation_links
from jupyter_agent.builtin_tools.web.search import WebSearchConfig, WebSearchTool
from jupyter_agent.testing import (
    Citation,
    ScriptedUsage,
    SearchHit,
    ServerToolUse,
    StopReason,
    Text,
    ToolUse,
    Turn,
    WebSearchResult,
)
from jupyter_agent.tools import tool
from jupyter_agent.ui.gate import markdown_to_html

PAGES = [
    SearchHit(title="pandas 3.0 release notes", url="https://pandas.pydata.org/docs/whatsnew/v3.0.0.html"),
    SearchHit(title="What's new", url="https://example.org/new", page_age="2 days ago"),
]


def searching_turn(query: str = "pandas 3 copy on write", stop_reason: StopReason | None = None) -> Turn:
    cited = Citation(url=PAGES[0].url, title=PAGES[0].title, cited_text="Copy-on-Write is the default")
    return Turn(
        blocks=[
            Text("Let me look that up."),
            ServerToolUse(input={"query": query}),
            WebSearchResult(results=PAGES),
            Text("Copy-on-Write is now the default.", citations=[cited]),
        ],
        usage=ScriptedUsage(input_tokens=1000, output_tokens=100),
        stop_reason=stop_reason,
    )


def test_the_tool_definition_is_the_server_tools_and_stays_the_same() -> None:
    tool = WebSearchTool(WebSearchConfig(max_uses=3, blocked_domains=("pinterest.com",)))
    param = tool.to_param()
    assert param == {
        "type": "web_search_20250305",
        "name": "web_search",
        "max_uses": 3,
        "blocked_domains": ["pinterest.com"],
    }
    assert tool.to_param() == param
    with pytest.raises(ValueError, match="allowed domains or blocked domains, not both"):
        WebSearchConfig(allowed_domains=("a.org",), blocked_domains=("b.org",))


def test_a_search_is_a_card_its_blocks_stay_in_the_conversation_and_the_next_request_is_valid(
    harness: HarnessFactory,
) -> None:
    h = harness([searching_turn(), Turn(blocks=[Text("Anything else?")])], tools=[WebSearchTool()])
    h.run("what changed in pandas 3?")
    h.run("thanks")
    first, second = h.server.requests
    assert {k: v for k, v in first["tools"][-1].items() if k != "cache_control"} == {
        "type": "web_search_20250305",
        "name": "web_search",
        "max_uses": 5,
    }
    assert first["tools"] == second["tools"]  # byte-identical: the prompt cache holds
    assistant = second["messages"][1]["content"]
    assert [b["type"] for b in assistant] == ["text", "server_tool_use", "web_search_tool_result", "text"]
    assert assistant[1]["input"] == {"query": "pandas 3 copy on write"}
    assert assistant[2]["content"][0]["encrypted_content"]  # sent back as it came
    assert assistant[3]["citations"][0]["url"] == PAGES[0].url
    assert_valid_request(second)
    started = next(e for e in h.of(ToolStarted) if e.name == "WebSearch")
    assert started.input == {"query": "pandas 3 copy on write"}
    card = next(e for e in h.of(ToolFinished) if e.call_id == started.call_id)
    assert card.title == "WebSearch pandas 3 copy on write"
    assert card.result.summary == "2 results"
    assert card.result.content.splitlines() == [
        "1. pandas 3.0 release notes",
        f"   {PAGES[0].url}",
        "2. What's new (2 days ago)",
        f"   {PAGES[1].url}",
    ]


def test_citations_follow_the_cited_text_as_links(harness: HarnessFactory) -> None:
    h = harness([searching_turn()], tools=[WebSearchTool()])
    h.run("what changed?")
    streamed = "".join(e.text for e in h.of(TextDelta))
    assert streamed.endswith(
        f"Copy-on-Write is now the default. ([pandas 3.0 release notes]({PAGES[0].url}))"
    )
    assert (
        f'<a target="_blank" rel="noopener noreferrer nofollow" href="{PAGES[0].url}">'
        in markdown_to_html(streamed)
    )


@pytest.mark.parametrize(
    ("title", "url", "expected"),
    [
        pytest.param(
            "a](javascript:alert(1))",
            "https://ok.org/",
            " ([a\\]\\(javascript:alert\\(1\\)\\)](https://ok.org/))",
            id="a title that tries to close the link",
        ),
        pytest.param("x", "javascript:alert(1)", "", id="a javascript URL is no link"),
        pytest.param(
            "<img src=x onerror=alert(1)>",
            "https://ok.org/a b)",
            " ([\\<img src=x onerror=alert\\(1\\)\\>](https://ok.org/a%20b%29))",
            id="markup in the title and a paren in the URL",
        ),
    ],
)
def test_a_hostile_citation_stays_a_plain_link(title: str, url: str, expected: str) -> None:
    citation = {"type": "web_search_result_location", "title": title, "url": url}
    links = citation_links([citation])
    assert links == expected
    rendered = markdown_to_html(f"text{links}")
    assert "<img" not in rendered and "javascript:" not in rendered.replace("javascript:alert", "")


def test_searches_are_counted_and_priced_per_search() -> None:
    usage = Usage(input=1000, output=100, web_searches=2)
    assert turn_cost("claude-sonnet-4-6", usage) == pytest.approx(
        turn_cost("claude-sonnet-4-6", Usage(input=1000, output=100)) + 0.02
    )
    assert turn_cost("a-local-model", usage) == 0.0


def test_the_run_reports_its_searches_in_its_usage_and_cost(harness: HarnessFactory) -> None:
    h = harness([searching_turn()], tools=[WebSearchTool()], model="claude-sonnet-4-6")
    finished = h.run("look it up")
    assert finished.usage.web_searches == 1
    assert finished.cost_usd == pytest.approx((1000 * 3 + 100 * 15) / 1_000_000 + 0.01)


def test_a_paused_turn_is_sent_back_exactly_as_it_came_to_be_continued(harness: HarnessFactory) -> None:
    def script(body: dict[str, Any], index: int) -> Turn:
        if index < 2:  # a long turn the API paused: the loop sends it back to be continued
            return searching_turn(f"query {index}", stop_reason="pause_turn")
        return Turn(blocks=[Text("done")])

    h = harness(script, tools=[WebSearchTool(WebSearchConfig(max_uses=2))])
    finished = h.run("search twice")
    assert isinstance(finished, RunFinished) and finished.usage.web_searches == 2
    second, third = h.server.requests[1:]
    assert second["messages"][-1]["role"] == "assistant"  # the paused turn, last, as the docs continue it
    # the continuation is appended to the paused turn (the API combines consecutive assistant turns): what was
    # sent is sent again unchanged, followed by what came since
    paused, continued = _plain(second["messages"])[-1], _plain(third["messages"])[1]
    assert continued["content"][: len(paused["content"])] == paused["content"]
    assert _plain(third["messages"])[0] == _plain(second["messages"])[0]
    assert [t["name"] for t in third["tools"]] == ["web_search"]  # never taken out of `tools`
    flattened = [b for m in third["messages"] for b in m["content"]]
    assert sum(b["type"] == "server_tool_use" for b in flattened) == 2  # blocks kept as they came
    assert any("citations" in b for b in flattened)


def test_once_a_run_used_its_searches_the_model_is_told_by_a_tool_removal_and_the_next_run_adds_it_back(
    harness: HarnessFactory,
) -> None:
    turns = [
        Turn(
            blocks=[
                ServerToolUse(input={"query": "q"}),
                WebSearchResult(results=PAGES),
                ToolUse(name="add", input={}),
            ],
        ),
        Turn(blocks=[Text("done")]),
        Turn(blocks=[Text("again")]),
    ]
    h = harness(turns, tools=[WebSearchTool(WebSearchConfig(max_uses=1)), add])
    h.run("search once")
    h.run("and now")
    first, second, third = h.server.requests
    assert json.dumps(first["tools"]) == json.dumps(second["tools"]) == json.dumps(third["tools"])
    removal = second["messages"][-1]
    assert removal == {
        "role": "system",
        "content": [
            {
                "type": "tool_removal",
                "tool": {"type": "tool_reference", "name": "web_search"},
                "cache_control": {"type": "ephemeral"},
            }
        ],
    }
    assert_valid_request(second)
    systems = [m for m in third["messages"] if m["role"] == "system"]
    assert [b["type"] for m in systems for b in m["content"]] == ["tool_removal", "tool_addition"]
    assert systems[-1]["content"][0]["tool"] == {"type": "tool_reference", "name": "web_search"}


def _plain(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {**m, "content": [{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]]}
        for m in messages
    ]


@tool(read_only=True)
def add() -> str:
    """Add nothing."""
    return "0"


def test_an_interrupt_after_the_query_leaves_no_call_without_its_result(harness: HarnessFactory) -> None:
    """The API refuses a search call without its result: the interrupted turn keeps neither."""
    slow = Turn(
        blocks=[Text("Searching."), ServerToolUse(input={"query": "x"}), WebSearchResult(results=PAGES)],
        delay=0.3,
    )
    h = harness([slow, Turn(blocks=[Text("ok")])], tools=[WebSearchTool()])
    future = h.start("search")
    h.wait_for(ToolStarted, lambda e: e.name == "WebSearch")
    h.worker.stop_current()
    assert future.result(timeout=10).reason == "interrupted"
    card = next(e for e in h.of(ToolFinished) if e.name == "WebSearch")
    assert card.result.error_code == "INTERRUPTED"
    assert h.run("again").reason == "end_turn"
    last = h.server.requests[-1]
    assert_valid_request(last)
    assert last["messages"][1]["content"] == [{"type": "text", "text": "Searching."}]
