"""`bash_keep_env`: the setting hands named variables to Bash's environment (through the run's configuration)
while their values stay masked in what the model gets; without it a credential stays out."""

from __future__ import annotations

from pathlib import Path

import pytest
from dispatch_harness import ToolHarness

from jupyter_agent.base.sandbox import Sandbox
from jupyter_agent.host.configure import run_setup
from jupyter_agent.settings import AgentSettings, SettingError
from jupyter_agent.tools import ToolResult


def bash_from_settings(settings: AgentSettings, tmp_path: Path, command: str) -> ToolResult:
    setup = run_setup(settings, sandbox=Sandbox.at(tmp_path))
    tools = ToolHarness(tmp_path, list(setup.sources["bash"]), mode="bypassPermissions")
    return tools.call("Bash", {"command": command})


def test_a_kept_credential_reaches_the_command_and_the_model_sees_it_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-kept-for-gh-1234")
    settings = AgentSettings(enable_bash=True, bash_keep_env=["GITHUB_TOKEN"])
    result = bash_from_settings(
        settings, tmp_path, '[ "$GITHUB_TOKEN" = ghp-kept-for-gh-1234 ] && echo "seen $GITHUB_TOKEN"'
    )
    assert not result.is_error
    assert result.content == "seen [redacted: GITHUB_TOKEN]"


def test_without_the_setting_the_command_does_not_see_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-not-for-bash-5678")
    result = bash_from_settings(AgentSettings(enable_bash=True), tmp_path, 'echo "[${GITHUB_TOKEN:-unset}]"')
    assert result.content == "[unset]"


def test_a_kept_name_the_patterns_do_not_call_a_secret_is_masked_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPLOY_LOGIN", "deploy-login-value-9012")
    settings = AgentSettings(enable_bash=True, bash_keep_env=["DEPLOY_LOGIN"])
    result = bash_from_settings(settings, tmp_path, 'echo "$DEPLOY_LOGIN"')
    assert result.content == "[redacted: DEPLOY_LOGIN]"


def test_a_value_instead_of_a_name_is_refused_naming_the_setting() -> None:
    with pytest.raises(SettingError, match="bash_keep_env lists NAMES"):
        AgentSettings(bash_keep_env=["ghp-abc def"])
