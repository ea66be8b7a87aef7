"""The quickstart's setup and its scripted model (`jupyter_agent.testing.demo`): offline unless the user set a key,
the same on a second run in one process, and a demo module whose edits are seen by the next reload."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from jupyter_agent.agent.pricing import OFFLINE_DEMO_ENV, offline_demo
from jupyter_agent.testing import TEST_API_KEY, Text, ToolUse, demo
from jupyter_agent.testing.demo import BUG, FIX, LOADER, demo_turn, start_quickstart, write_demo_project


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No credential and no demo settings, as in a kernel a user started without a key; afterwards the demo's
    model is stopped and these variables are as they were (the demo sets them itself, not through monkeypatch:
    set then deleted here, each is restored even when it did not exist)."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", OFFLINE_DEMO_ENV):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    yield
    demo._stop_demo()


def load(path: Path) -> ModuleType:
    """Import (or re-import) a module from its file, through the bytecode cache, as `importlib.reload` does."""
    spec = importlib.util.spec_from_file_location("quickstart_sales_loader", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_edit_as_long_as_the_bug_made_in_the_same_second_is_seen_by_the_next_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as in most kernels, where PYTHONDONTWRITEBYTECODE is not set
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = write_demo_project(tmp_path)
    assert len(BUG) == len(FIX)  # what makes the default bytecode cache miss the change
    before = os.stat(path)
    assert [r["month"] for r in load(path).load_quarter(str(tmp_path / "demo"))] == ["1", "2"]
    path.write_text(path.read_text().replace(BUG, FIX))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the same second, the same size
    assert [r["month"] for r in load(path).load_quarter(str(tmp_path / "demo"))] == ["1", "2", "3"]


def test_without_a_key_the_quickstart_is_offline_and_a_second_start_stays_offline(
    clean_env: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start_quickstart(tmp_path)
    url = os.environ["ANTHROPIC_BASE_URL"]
    start_quickstart(tmp_path)  # the demo's own key is in the environment now: it does not count
    printed = capsys.readouterr().out.splitlines()
    offline = "offline demo: a scripted model on this machine answers (no ANTHROPIC_API_KEY is set)"
    assert printed == [offline, offline]
    # the same scripted model, still running
    assert offline_demo() and os.environ["ANTHROPIC_BASE_URL"] == url
    assert (tmp_path / LOADER).read_text().count(BUG) == 1


def test_a_second_start_writes_the_demo_project_afresh(clean_env: None, tmp_path: Path) -> None:
    start_quickstart(tmp_path)
    loader = tmp_path / LOADER
    loader.write_text(loader.read_text().replace(BUG, FIX))
    start_quickstart(tmp_path)
    assert BUG in loader.read_text()


def test_a_key_the_user_set_means_claude_and_the_demo_changes_nothing(
    clean_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-users-own-key")
    start_quickstart(tmp_path)
    assert capsys.readouterr().out == "using Claude: ANTHROPIC_API_KEY is set\n"
    assert os.environ["ANTHROPIC_API_KEY"] == "sk-ant-users-own-key"
    assert "ANTHROPIC_BASE_URL" not in os.environ and OFFLINE_DEMO_ENV not in os.environ


@pytest.mark.parametrize("credential", ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"])
def test_a_credential_set_after_the_demo_ran_switches_to_claude_and_takes_the_demo_settings_back(
    credential: str,
    clean_env: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    start_quickstart(tmp_path)
    monkeypatch.setenv(credential, "sk-ant-users-own-secret")
    start_quickstart(tmp_path)
    printed = capsys.readouterr().out.splitlines()
    assert printed[1:] == [
        f"using Claude: {credential} is set",
        "this kernel ran the offline demo before: restart the kernel so the agent connects to Claude",
    ]
    assert "ANTHROPIC_BASE_URL" not in os.environ and not offline_demo()
    # the user's credential stays, the demo's key is gone
    assert {name: os.environ.get(name) for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")} == {
        "ANTHROPIC_API_KEY": None,
        "ANTHROPIC_AUTH_TOKEN": None,
        credential: "sk-ant-users-own-secret",
    }


def test_a_base_url_the_user_set_is_named(
    clean_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-users-own-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:4000")
    start_quickstart(tmp_path)
    printed = capsys.readouterr().out
    assert printed == "using Claude: ANTHROPIC_API_KEY is set (through http://127.0.0.1:4000)\n"
    assert os.environ["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:4000"


def request(text: str, *results: str) -> dict[str, Any]:
    """A Messages API body: the request, then (if given) the model's Read and its result."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": text}]}]
    for result in results:
        messages.append({"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Read"}]})
        messages.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": result}]}
        )
    return {"messages": messages}


def test_the_demo_model_reads_the_loader_before_it_answers_the_question_about_the_range() -> None:
    question = "why does range(1, 3) leave out March?"
    assert demo_turn(request(question), 0).blocks == [ToolUse(name="Read", input={"file_path": LOADER})]
    (undone,) = demo_turn(request(question, f"     9\t{BUG}"), 1).blocks
    (fixed,) = demo_turn(request(question, f"     9\t{FIX}"), 1).blocks
    assert isinstance(undone, Text) and "stops *before* 3" in undone.text and "undone" in undone.text
    assert isinstance(fixed, Text) and "reads `range(1, 4)`" in fixed.text


def test_the_demo_model_says_what_it_is_when_asked_anything_else() -> None:
    (answer,) = demo_turn(request("summarise this notebook"), 0).blocks
    assert isinstance(answer, Text) and answer.text.startswith("(offline demo)")
    assert "ANTHROPIC_API_KEY" in answer.text


def test_a_request_to_fix_follows_the_fix_script_even_after_a_question_in_the_same_conversation() -> None:
    body = request("why does range(1, 3) leave out March?", f"     9\t{BUG}")
    body["messages"].append({"role": "assistant", "content": [{"type": "text", "text": "Because…"}]})
    body["messages"].append({"role": "user", "content": [{"type": "text", "text": "then fix it"}]})
    first = demo_turn(body, 2).blocks
    assert first[-1] == ToolUse(name="Read", input={"file_path": LOADER})


def test_a_key_for_another_scripted_server_is_the_users_choice_and_stays(
    clean_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The testing key with the user's own base URL (a `scripted_server` fixture, a local test): not the demo's."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:4000")
    start_quickstart(tmp_path)
    assert (
        capsys.readouterr().out == "using Claude: ANTHROPIC_API_KEY is set (through http://127.0.0.1:4000)\n"
    )
    assert os.environ["ANTHROPIC_API_KEY"] == TEST_API_KEY
