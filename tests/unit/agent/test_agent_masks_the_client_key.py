"""The key the model client actually uses — here passed in the configuration, in no environment variable —
is masked in tool results before the model reads them."""

from __future__ import annotations

from agent_testkit import HarnessFactory, result_text, tool_results

from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.tools import tool

CONFIGURED_KEY = "sk-ant-configured-only-7c1e9d55"


@tool(read_only=True)
def read_config() -> str:
    """Return the application's configuration file (which, carelessly, holds the key)."""
    return f"api_key = {CONFIGURED_KEY}\nretries = 3"


def test_a_configured_api_key_is_masked_in_what_the_model_reads(harness: HarnessFactory) -> None:
    h = harness(
        [Turn(blocks=[ToolUse(name="read_config", input={})]), Turn(blocks=[Text("done")])],
        tools=[read_config],
        api_key=CONFIGURED_KEY,
    )
    assert h.run("show the config").reason == "end_turn"
    assert CONFIGURED_KEY in repr(h.server.recorded[0].headers)  # it really is the key the client sends
    [result] = tool_results(h.server.requests[1])
    assert result_text(result) == "api_key = [redacted: model client api_key]\nretries = 3"
