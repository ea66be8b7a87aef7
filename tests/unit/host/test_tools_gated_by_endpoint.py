"""Tools gated by what the endpoint supports: WebSearch (a server tool, run on Anthropic's side) is not offered to
Bedrock, which does not run server tools, and `%agent tools` says why a tool asked for is not offered."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.base.sandbox import Sandbox
from jupyter_agent.host.configure import run_setup
from jupyter_agent.settings import AgentSettings


def tools_output(shell: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    shell.run_line_magic("agent", "tools")
    return capsys.readouterr().out


@pytest.mark.parametrize("provider", ["anthropic", "vertex"])
def test_an_endpoint_that_runs_server_tools_is_offered_web_search(provider: str, tmp_path: Path) -> None:
    setup = run_setup(AgentSettings(enable_web_search=True, provider=provider), sandbox=Sandbox.at(tmp_path))
    assert [tool.name for tool in setup.sources["websearch"]] == ["WebSearch"]
    assert setup.withheld == {}


def test_bedrock_is_not_offered_web_search_and_the_setup_says_why(tmp_path: Path) -> None:
    setup = run_setup(AgentSettings(enable_web_search=True, provider="bedrock"), sandbox=Sandbox.at(tmp_path))
    assert setup.sources["websearch"] == ()
    assert (
        "the bedrock endpoint (AgentMagics.provider) does not run Anthropic's server tools"
        in (setup.withheld["WebSearch"])
    )


def test_a_tool_nobody_asked_for_is_not_reported_as_withheld(tmp_path: Path) -> None:
    assert run_setup(AgentSettings(provider="bedrock"), sandbox=Sandbox.at(tmp_path)).withheld == {}


def test_agent_tools_says_why_web_search_is_not_offered(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_line_magic("config", "AgentMagics.enable_web_search = True")
    offered = tools_output(shell, capsys)
    assert "WebSearch" in offered and "not offered" not in offered

    shell.run_line_magic("config", "AgentMagics.provider = 'bedrock'")
    out = tools_output(shell, capsys)
    listed = [line.split()[0] for line in out.splitlines() if line and not line.startswith("not offered")]
    assert "WebSearch" not in listed
    assert (
        "not offered: WebSearch: the bedrock endpoint (AgentMagics.provider) does not run Anthropic's server "
        "tools; WebFetch fetches pages here" in out
    )


def test_agent_tools_says_an_ask_rule_keeps_web_search_out(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_line_magic("config", "AgentMagics.enable_web_search = True")
    shell.run_line_magic("config", "AgentMagics.ask = ['WebSearch']")
    assert "not offered: WebSearch: an ask rule names it" in tools_output(shell, capsys)
