"""The secret registry: which values are secrets, how they are masked, and the two chokepoints that apply it
(the Dispatcher for model input, the publish layer for displays)."""

from __future__ import annotations

import html
import json
from pathlib import Path
from urllib.parse import quote

import pytest
from dispatch_harness import ToolHarness

from jupyter_agent import masking
from jupyter_agent.masking import SecretRegistry
from jupyter_agent.tools import (
    HookCall,
    ToolResult,
    tool,
)
from jupyter_agent.tools.hooks import Hooks
from jupyter_agent.ui.cards import ToolCard
from jupyter_agent.ui.gate import masked
from jupyter_agent.ui.publish import DisplayPublisher

KEY = "sk-ant-api03-Zq8vR2mLx9TtY4pN7wKe"


def registry(**environ: str) -> SecretRegistry:
    return SecretRegistry(environ=environ)


def test_credential_like_environment_variables_are_secrets() -> None:
    secrets = registry(
        ANTHROPIC_API_KEY=KEY,
        ANTHROPIC_AUTH_TOKEN="auth-token-12345678",
        OPENAI_API_KEY="openai-secret-value",
        GITHUB_TOKEN="ghp_0123456789abcdef",
        DJANGO_SECRET="django-secret-value",
        DB_PASSWORD="correct-horse-battery",
        MYSQL_ROOT_PASSWORD_FILE="/run/secrets/mysql-password",
        AWS_SECRET_ACCESS_KEY="aws/secret+access",
        HOME="/home/someone-long",
        EDITOR="vim-editor-long",
    ).secrets()
    assert sorted(secrets.values()) == [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "DB_PASSWORD",
        "DJANGO_SECRET",
        "GITHUB_TOKEN",
        "MYSQL_ROOT_PASSWORD_FILE",
        "OPENAI_API_KEY",
    ]


def test_configuration_that_matches_a_pattern_is_not_masked() -> None:
    secrets = registry(
        ANTHROPIC_MODEL="claude-sonnet-5-5",
        ANTHROPIC_BASE_URL="https://api.example.com",
        AWS_REGION="eu-central-1",
        AWS_PROFILE="analytics",
    )
    assert secrets.secrets() == {}
    assert (
        secrets.mask("model claude-sonnet-5-5 in eu-central-1") == "model claude-sonnet-5-5 in eu-central-1"
    )


def test_a_url_with_a_password_is_masked_whole_and_its_password_alone() -> None:
    secrets = registry(DATABASE_URL="postgres://analyst:s3cret-pa55word@db.internal:5432/sales")
    text = "connect to postgres://analyst:s3cret-pa55word@db.internal:5432/sales, password s3cret-pa55word"
    assert secrets.mask(text) == "connect to [redacted: DATABASE_URL], password [redacted: DATABASE_URL]"
    assert registry(SITE="https://example.com/path-long").secrets() == {}


def test_values_shorter_than_eight_characters_are_ignored() -> None:
    secrets = registry(API_TOKEN="1234567", LONG_TOKEN="12345678")
    assert secrets.mask("1234567 and 12345678") == "1234567 and [redacted: LONG_TOKEN]"
    secrets.register("short", "abc")
    assert secrets.mask("abc") == "abc"


def test_encoded_forms_of_a_secret_are_masked_too() -> None:
    value = 'p@ss"w<o>rd&\\more'
    secrets = registry(SERVICE_PASSWORD=value)
    for form in (
        value,
        json.dumps(value),
        repr(value),
        html.escape(value),
        "x=p%40ss%22w%3Co%3Erd%26%5Cmore",
    ):
        masked_form = secrets.mask(form)
        assert "[redacted: SERVICE_PASSWORD]" in masked_form, form
        assert "w<o>rd" not in masked_form and "w&lt;o&gt;rd" not in masked_form


def test_the_patterns_are_configurable() -> None:
    secrets = registry(MY_PRIVATE_THING="value-of-private-thing", GITHUB_TOKEN="ghp_0123456789abcdef")
    secrets.patterns = ["MY_PRIVATE_*"]
    assert secrets.secrets() == {"value-of-private-thing": "MY_PRIVATE_THING"}


def test_setting_secret_env_patterns_reconfigures_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    from jupyter_agent.settings import AgentSettings

    monkeypatch.setattr(masking.REGISTRY, "patterns", masking.REGISTRY.patterns)
    monkeypatch.setenv("TEAM_VAULT_ENTRY", "vault-entry-value-1")
    assert masking.mask("vault-entry-value-1") == "vault-entry-value-1"
    settings = AgentSettings()
    settings.secret_env_patterns = [*settings.secret_env_patterns, "*_VAULT_ENTRY"]
    assert masking.mask("vault-entry-value-1") == "[redacted: TEAM_VAULT_ENTRY]"


def test_masking_plain_text_and_html_bundles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    card = ToolCard(call_id="t", name="Read", input={"file_path": "keys.txt"}, kind="read")
    card.result = ToolResult.ok(f"line 1\n<b>{KEY}</b>")
    bundle = masked({"text/plain": f"key {KEY}", "text/html": card.html()})
    assert KEY not in json.dumps(bundle)
    assert bundle["text/plain"] == "key [redacted: ANTHROPIC_API_KEY]"
    assert "[redacted: ANTHROPIC_API_KEY]&lt;/b&gt;" in bundle["text/html"]


def test_the_display_publisher_masks_what_it_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    from IPython.core.interactiveshell import InteractiveShell

    shown: list[object] = []
    shell = InteractiveShell.instance()
    monkeypatch.setattr(shell.display_pub, "publish", lambda data, **_kw: shown.append(data))
    monkeypatch.setenv("SERVICE_TOKEN", "tok-abcdefghijkl")
    publisher = DisplayPublisher()
    display_id = publisher.show({"text/plain": "tok-abcdefghijkl", "text/html": "<p>tok-abcdefghijkl</p>"})
    publisher.update(display_id, {"text/plain": "now tok-abcdefghijkl"})
    assert "tok-abcdefghijkl" not in repr(shown) and repr(shown).count("[redacted: SERVICE_TOKEN]") == 3


def test_mask_data_masks_every_string_of_a_record() -> None:
    secrets = registry(OPENAI_API_KEY="openai-secret-value")
    record = {"role": "user", "content": [{"type": "text", "text": "openai-secret-value"}], "n": 3}
    assert secrets.mask_data(record) == {
        "role": "user",
        "content": [{"type": "text", "text": "[redacted: OPENAI_API_KEY]"}],
        "n": 3,
    }


def test_bash_gets_the_environment_without_what_the_registry_masks() -> None:
    environ = {
        "PATH": "/bin",
        "ANTHROPIC_BASE_URL": "https://x",
        "SESSION_TOKEN": "1",
        "DATABASE_URL": "mysql://u:longpassword@h/db",
    }
    assert registry().scrubbed_environ(environ) == {"PATH": "/bin"}
    assert registry().scrubbed_environ(environ, keep=["SESSION_TOKEN"]) == {
        "PATH": "/bin",
        "SESSION_TOKEN": "1",
    }


# -- the Dispatcher: one net under every tool ----------------------------------------------------------


@tool(read_only=True)
def leak(where: str) -> str:
    """Return a value from the environment (a tool that knows nothing about secrets)."""
    import os

    return f"{where}: {os.environ['ANTHROPIC_API_KEY']}"


@tool(read_only=True)
def part(form: str) -> str:
    """Return the key in some form a model could ask for (a slice, reversed, quoted, inside other text)."""
    import os
    from urllib.parse import quote

    key = os.environ["ANTHROPIC_API_KEY"]
    forms = {
        "slice": key[0:40],
        "tail": key[-9:],
        "reversed": key[::-1],
        "quoted": quote(key),
        "quoted plus": quote(key + " x", safe=""),
        "inside": f"prefix{key[3:20]}suffix",
        "json": '{"k": "' + key[10:] + '"}',
    }
    return f"{form}={forms[form]}"


@tool(read_only=True)
def strict(count: int) -> str:
    """Needs an integer."""
    return str(count)


def dispatch(
    name: str, tool_input: dict[str, object], tmp_path: Path, hooks: Hooks | None = None
) -> ToolResult:
    return ToolHarness(tmp_path, sources={"user": [leak, part, strict]}, hooks=hooks).call(name, tool_input)


def test_the_dispatcher_masks_every_tools_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    result = dispatch("leak", {"where": "env"}, tmp_path)
    assert (result.content, result.summary) == (
        "env: [redacted: ANTHROPIC_API_KEY]",
        "env: [redacted: ANTHROPIC_API_KEY]",
    )
    invalid = dispatch("strict", {"count": KEY}, tmp_path)
    assert KEY not in invalid.content and KEY not in repr(invalid.issues)


@pytest.mark.parametrize("form", ["slice", "tail", "reversed", "quoted", "quoted plus", "inside", "json"])
def test_any_run_of_eight_characters_of_a_secret_is_masked_in_every_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    key = "sk-ant-api03-Jr4Nq8Wx2Lm6Tz1Vc5Bh9Kd/Fg3+Ys7=="  # `/`, `+`, `=`: quote() changes some of them
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    shown = dispatch("part", {"form": form}, tmp_path).content
    assert "[redacted: ANTHROPIC_API_KEY]" in shown, shown
    for source in (key, key[::-1], quote(key), quote(key, safe="")):
        assert not any(source[i : i + 8] in shown for i in range(len(source) - 7)), shown


def test_ordinary_text_that_shares_no_eight_characters_with_a_secret_is_left_alone() -> None:
    secrets = registry(ANTHROPIC_API_KEY=KEY)
    text = "sk-ant-api03- is the prefix all keys share; Zq8vR2m is seven characters of the key; the rest is prose."
    assert secrets.mask(text) == text
    assert secrets.mask(f"a{KEY[12:20]}b") == "a[redacted: ANTHROPIC_API_KEY]b"


def test_a_post_hook_cannot_unmask_and_its_output_is_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)

    def add_key(call: HookCall, result: ToolResult) -> ToolResult:
        return ToolResult.ok(result.content + " / " + KEY)

    result = dispatch("strict", {"count": 1}, tmp_path, hooks=Hooks(post_tool_use=[add_key]))
    assert result.content == "1 / [redacted: ANTHROPIC_API_KEY]"


def test_a_long_secret_cut_in_an_invalid_args_message_is_masked_before_the_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_key = "sk-ant-api03-" + "Q7" * 50
    monkeypatch.setenv("ANTHROPIC_API_KEY", long_key)
    invalid = dispatch("strict", {"count": long_key}, tmp_path)
    assert long_key[:30] not in invalid.content and "[redacted: ANTHROPIC_API_KEY]" in invalid.content


def test_a_saved_session_record_has_no_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    from jupyter_agent.sessions.log import encode_record

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    record = {"type": "messages", "messages": [{"role": "user", "content": [{"type": "text", "text": KEY}]}]}
    line = encode_record(record).decode()
    assert KEY not in line and "[redacted: ANTHROPIC_API_KEY]" in line
