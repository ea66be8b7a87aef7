"""The scripted server's web search blocks, read back by the real `anthropic` SDK's own types, streaming and not."""

from __future__ import annotations

import anthropic
import pytest

from jupyter_agent.testing import (
    TEST_API_KEY,
    Citation,
    ScriptedServer,
    SearchHit,
    ServerToolUse,
    Text,
    Turn,
    WebSearchResult,
    script_from_json,
)

HIT = SearchHit(title="Python 3.14 released", url="https://www.python.org/downloads/release/python-3140/")
TURN = Turn(
    blocks=[
        ServerToolUse(input={"query": "python 3.14 release date"}),
        WebSearchResult(results=[HIT]),
        Text(
            "It came out in October.",
            citations=[Citation(url=HIT.url, title=HIT.title, cited_text="October")],
        ),
    ]
)
TOOLS: list[anthropic.types.ToolUnionParam] = [
    {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
]
USER: list[anthropic.types.MessageParam] = [{"role": "user", "content": "when?"}]


def check(message: anthropic.types.Message) -> None:
    call, result, text = message.content
    assert isinstance(call, anthropic.types.ServerToolUseBlock)
    assert call.id == "srvtoolu_01_0_0" and call.name == "web_search"
    assert call.input == {"query": "python 3.14 release date"}
    assert isinstance(result, anthropic.types.WebSearchToolResultBlock)
    assert result.tool_use_id == call.id
    assert isinstance(result.content, list)
    page = result.content[0]
    assert page.title == HIT.title and page.url == HIT.url and page.encrypted_content
    assert isinstance(text, anthropic.types.TextBlock)
    assert text.citations is not None
    cited = text.citations[0]
    assert isinstance(cited, anthropic.types.CitationsWebSearchResultLocation)
    assert cited.url == HIT.url and cited.cited_text == "October"
    assert message.usage.server_tool_use is not None
    assert message.usage.server_tool_use.web_search_requests == 1
    assert message.stop_reason == "end_turn"


@pytest.mark.parametrize("streaming", [True, False], ids=["streamed", "not streamed"])
def test_a_search_turn_reads_back_as_the_sdks_own_blocks(streaming: bool) -> None:
    with ScriptedServer([TURN]) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key=TEST_API_KEY)
        if streaming:
            with client.messages.stream(
                model="claude-sonnet-5-5", max_tokens=100, messages=USER, tools=TOOLS
            ) as stream:
                message = stream.get_final_message()
        else:
            message = client.messages.create(
                model="claude-sonnet-5-5", max_tokens=100, messages=USER, tools=TOOLS
            )
    check(message)


def test_a_search_call_without_its_result_is_refused_like_the_api_does() -> None:
    call = {"type": "server_tool_use", "id": "srvtoolu_9", "name": "web_search", "input": {"query": "q"}}
    messages: list[anthropic.types.MessageParam] = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [call]},  # pyright: ignore[reportAssignmentType]
        {"role": "user", "content": "and?"},
    ]
    with ScriptedServer([Turn(blocks=[Text("x")])]) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key=TEST_API_KEY, max_retries=0)
        with pytest.raises(
            anthropic.BadRequestError,
            match="`srvtoolu_9` was found without a corresponding `web_search_tool_result` block",
        ):
            client.messages.create(model="claude-sonnet-5-5", max_tokens=100, messages=messages)


def test_the_json_script_form_builds_the_same_search_turn() -> None:
    data = [
        {
            "blocks": [
                {"type": "server_tool_use", "input": {"query": "python 3.14 release date"}},
                {"type": "web_search_tool_result", "results": [{"title": HIT.title, "url": HIT.url}]},
                {
                    "type": "text",
                    "text": "It came out in October.",
                    "citations": [{"url": HIT.url, "title": HIT.title, "cited_text": "October"}],
                },
            ]
        }
    ]
    assert script_from_json(data) == [TURN]
