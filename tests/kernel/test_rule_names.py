"""A rule that names no tool would never match (a deny rule would silently protect nothing): it is refused
where it enters, in a real kernel, with the name the user probably meant."""

from __future__ import annotations

import pytest
from frontend import AgentKernel

from jupyter_agent.testing import Text, Turn

pytestmark = pytest.mark.kernel


def test_a_rule_in_the_wrong_case_or_for_no_tool_is_refused_with_the_right_name(
    agent_kernel: AgentKernel,
) -> None:
    frontend, server = agent_kernel([Turn(blocks=[Text("never sent")])], headless=True)

    wrong_case = frontend.run("%agent deny bash", timeout=60)
    assert wrong_case.reply is not None and wrong_case.reply["status"] == "error"
    assert "did you mean Bash? (tool names are case-sensitive)" in wrong_case.text()

    no_server = frontend.run("%%agent --deny mcp__nothere\nhello", timeout=60)
    assert "UNKNOWN_TOOL_IN_RULE: the rule mcp__nothere names no known tool" in no_server.text()
    assert server.requests == []  # the run did not start

    settings = frontend.run("%config AgentMagics.deny = ['Wrte']\n%agent status", timeout=60)
    assert "did you mean Write?" in settings.text()
    assert server.requests == []

    fine = frontend.run("%config AgentMagics.deny = []\n%agent deny mcp__srv\n%agent status", timeout=60)
    assert "UNKNOWN_TOOL_IN_RULE: the rule mcp__srv" in fine.text()
    ok = frontend.run("%agent deny Bash(rm*)\n%agent status", timeout=60)
    assert ok.reply is not None and ok.reply["status"] == "ok", ok.text()
    assert "deny  Bash(rm*)  (AgentMagics.deny (%config, %agent deny))" in ok.text()
