"""`%agent status` says where the next run goes and where its key comes from, as the kernel's settings and
environment are now (a variable set after the first run counts), by the variable's name and never its value;
and Bash off says off."""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.testing import TEST_API_KEY


def status_rows(shell: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    capsys.readouterr()
    shell.run_line_magic("agent", "status")
    out = capsys.readouterr().out
    rows: dict[str, str] = {}
    for line in out.splitlines():
        if line and not line.startswith(" ") and ":" in line:
            label, value = line.split(":", 1)
            rows[label] = value.strip()
    return rows


def test_the_endpoint_and_key_follow_the_environment_and_the_settings(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    rows = status_rows(shell, capsys)
    assert rows["endpoint"].startswith("https://api.anthropic.com (the default;")
    assert rows["key"] == "key from ANTHROPIC_API_KEY (the value is never shown)"

    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:4000")  # set after the extension loaded
    assert status_rows(shell, capsys)["endpoint"] == "http://127.0.0.1:4000 (from ANTHROPIC_BASE_URL)"

    shell.run_line_magic("config", "AgentMagics.base_url = 'http://localhost:11434'")
    monkeypatch.setenv("LOCAL_KEY", "local-secret-value-123")
    shell.run_line_magic("config", "AgentMagics.api_key_env = 'LOCAL_KEY'")
    rows = status_rows(shell, capsys)
    assert rows["endpoint"] == "http://localhost:11434 (from %config AgentMagics.base_url)"
    assert rows["key"] == "key from LOCAL_KEY (AgentMagics.api_key_env; the value is never shown)"


def test_no_key_says_how_to_set_one_and_no_key_is_ever_printed(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert TEST_API_KEY not in str(status_rows(shell, capsys))
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    key = status_rows(shell, capsys)["key"]
    assert key.startswith(
        "none: set os.environ['ANTHROPIC_API_KEY'] in the kernel (it applies at the next run)"
    )


@pytest.mark.parametrize(
    ("provider", "env", "endpoint", "key"),
    [
        (
            "bedrock",
            {"AWS_REGION": "eu-west-1", "AWS_PROFILE": "work"},
            "Bedrock (eu-west-1, from AWS_REGION)",
            "AWS credentials from AWS_PROFILE",
        ),
        (
            "vertex",
            {"CLOUD_ML_REGION": "us-east5", "ANTHROPIC_VERTEX_PROJECT_ID": "proj-1"},
            "Vertex AI (us-east5, project proj-1)",
            "Google application default credentials",
        ),
    ],
)
def test_a_cloud_provider_names_its_region_and_credential_source(
    shell: InteractiveShell,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    provider: str,
    env: dict[str, str],
    endpoint: str,
    key: str,
) -> None:
    for name in (
        "AWS_BEARER_TOKEN_BEDROCK",
        "AWS_ACCESS_KEY_ID",
        "AWS_DEFAULT_REGION",
        "GOOGLE_APPLICATION_CREDENTIALS",
    ):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    shell.run_line_magic("config", f"AgentMagics.provider = '{provider}'")
    rows = status_rows(shell, capsys)
    assert (rows["endpoint"], rows["key"]) == (endpoint, key)


def test_bash_off_says_off_and_on_says_its_sandbox(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    off = status_rows(shell, capsys)["bash"]
    assert off.startswith("off (%config AgentMagics.enable_bash = True, or a rule naming Bash, turns it on)")
    shell.run_line_magic("config", "AgentMagics.enable_bash = True")
    on = status_rows(shell, capsys)["bash"]
    assert not on.startswith("off") and on.split(":")[0] in ("sandboxed (bubblewrap)", "unsandboxed")
