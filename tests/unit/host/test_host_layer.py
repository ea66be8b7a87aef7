"""The host layer in a real IPython shell (terminal: no kernel), against the scripted Messages API server:
settings and one run's flags reach the request, per-run flags do not outlive the run, "Always allow"
answers become settings, opt-in tools appear only when asked for."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.magics import AgentMagics
from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn


def served(monkeypatch: pytest.MonkeyPatch, turns: list[Turn]) -> ScriptedServer:
    server = ScriptedServer(turns).start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    return server


def magics(ip: InteractiveShell) -> AgentMagics:
    return next(c for c in ip.configurables if isinstance(c, AgentMagics))


def tool_names(request: Any) -> list[str]:
    return [t["name"] for t in request.get("tools", [])]


def test_run_flags_apply_to_their_run_only(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = served(monkeypatch, [Turn(blocks=[Text("one")]), Turn(blocks=[Text("two")])])
    try:
        shell.run_line_magic("config", "AgentMagics.model = 'claude-sonnet-5-5'")
        shell.run_cell_magic("agent", "--model claude-opus-5-5 --allow Bash --max-turns 1", "first")
        shell.run_cell_magic("agent", "", "second")
        shell.run_line_magic("agent", "status")
    finally:
        server.stop()
    first, second = server.requests
    assert first["model"] == "claude-opus-5-5"
    assert "Bash" in tool_names(first)
    assert second["model"] == "claude-sonnet-5-5"
    # the tool list never changes in a conversation: Bash stays declared, and the model is told it went away
    assert second["tools"] == first["tools"]
    removed = [b["tool"]["name"] for m in second["messages"] if m["role"] == "system" for b in m["content"]]
    assert removed == ["Bash", "BashOutput", "KillShell"]
    assert "model:    claude-sonnet-5-5 (anthropic)" in capsys.readouterr().out


def test_always_allow_on_stdin_becomes_a_setting_and_the_next_run_does_not_ask(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    write = ToolUse(name="Write", input={"file_path": str(tmp_path / "a.txt"), "content": "x\n"})
    write_again = ToolUse(name="Write", input={"file_path": str(tmp_path / "b.txt"), "content": "y\n"})
    server = served(
        monkeypatch,
        [
            Turn(blocks=[write]),
            Turn(blocks=[Text("done")]),
            Turn(blocks=[write_again]),
            Turn(blocks=[Text("ok")]),
        ],
    )
    answers = iter(["a"])
    monkeypatch.setattr(builtins, "input", lambda _prompt="": next(answers))
    try:
        shell.run_cell_magic("agent", "", "write a")
        assert magics(shell).allow == ["Write"]
        shell.run_cell_magic("agent", "", "write b")  # a second question would exhaust `answers`
    finally:
        server.stop()
    assert (tmp_path / "a.txt").read_text() == "x\n"
    assert (tmp_path / "b.txt").read_text() == "y\n"


def test_a_run_flag_rule_is_not_kept_as_a_setting(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    write = ToolUse(name="Write", input={"file_path": str(tmp_path / "a.txt"), "content": "x\n"})
    server = served(monkeypatch, [Turn(blocks=[write]), Turn(blocks=[Text("done")])])
    try:
        shell.run_cell_magic("agent", "--allow Write", "write a")
    finally:
        server.stop()
    assert (tmp_path / "a.txt").exists()
    assert magics(shell).allow == []


def test_subcommands_come_from_the_table_and_mistakes_name_the_fix(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_line_magic("agent", "mode acceptEdits")
    shell.run_line_magic("agent", "allow 'Edit(src/**)'")
    shell.run_line_magic("agent", "help")
    out = capsys.readouterr().out
    assert "mode: acceptEdits" in out
    assert "allow: Edit(src/**)" in out
    assert "%agent undo" in out and "--max-turns N" in out
    with pytest.raises(UsageError, match=r"unknown subcommand 'stauts'; did you mean %agent status\?"):
        shell.run_line_magic("agent", "stauts")
    with pytest.raises(UsageError, match=r"%agent mode needs a value, e.g. %agent mode acceptEdits"):
        shell.run_line_magic("agent", "mode")


def test_a_one_line_request_ending_in_a_question_mark_is_not_taken_for_help(shell: InteractiveShell) -> None:
    assert shell.transform_cell("%agent why is df empty?") == (
        "get_ipython().run_line_magic('agent', 'why is df empty?')\n"
    )
    assert shell.transform_cell("%agent why isn't it loaded?") == (
        "get_ipython().run_line_magic('agent', \"why isn't it loaded?\")\n"
    )
    assert shell.transform_cell("df?") == "get_ipython().run_line_magic('pinfo', 'df')\n"  # help stays help
    assert shell.transform_cell("%%agent\nwhat?").startswith("get_ipython().run_cell_magic('agent'")
