"""Long sessions from the user's side, in a real IPython shell against the scripted server: --think, --max-cost,
the thinking / session budget / compaction settings, and %agent sessions, resume, export, memory, compact."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_testkit import texts
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.magics import AgentMagics
from jupyter_agent.sessions import list_sessions
from jupyter_agent.testing import ScriptedServer, ScriptedUsage, Text, Thinking, ToolUse, Turn

#: $2.0002 at the default model's prices, with a small prompt.
EXPENSIVE = ScriptedUsage(input_tokens=100, output_tokens=200_000)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[ScriptedServer]]:
    started: list[ScriptedServer] = []
    yield started
    for server in started:
        server.stop()


def first_thinking(server: ScriptedServer) -> dict[str, object]:
    """The thinking block of the first answer, as the next request sent it back."""
    return server.requests[1]["messages"][1]["content"][0]


def first_answer(server: ScriptedServer) -> dict[str, object]:
    """The first answer as the second request sent it back (the store's breakpoints are only on user turns)."""
    return server.requests[1]["messages"][1]


def serve(
    started: list[ScriptedServer], monkeypatch: pytest.MonkeyPatch, turns: list[Turn]
) -> ScriptedServer:
    server = ScriptedServer(turns).start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    started.append(server)
    return server


def test_think_and_max_cost_apply_to_their_run_only(
    shell: InteractiveShell,
    served: list[ScriptedServer],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (Path.cwd() / "a.txt").write_text("a\n")
    read = ToolUse(name="Read", input={"file_path": "a.txt"})
    server = serve(
        served,
        monkeypatch,
        [
            Turn(blocks=[Thinking("Plan the read."), read], usage=EXPENSIVE),
            Turn(blocks=[Text("second run")]),
        ],
    )
    shell.run_line_magic("config", "AgentMagics.model = 'claude-haiku-4-5'")  # a model that takes a budget
    shell.run_cell_magic("agent", "--think 2048 --max-cost 1", "read a")
    out = capsys.readouterr().out
    assert "reaching its budget of $1.0000" in out
    assert "💭 thinking (3 words)" in out and "Plan the read." not in out
    shell.run_cell_magic("agent", "", "again")
    first, second = server.requests
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert "thinking" not in second
    assert second["messages"][1]["content"][0] == first_thinking(server)


def test_think_off_turns_a_thinking_setting_off_for_one_run_only(
    shell: InteractiveShell, served: list[ScriptedServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = serve(served, monkeypatch, [Turn(blocks=[Text("plain")]), Turn(blocks=[Text("thought")])])
    shell.run_line_magic("config", "AgentMagics.model = 'claude-haiku-4-5'")
    shell.run_line_magic("config", "AgentMagics.thinking = '4096'")
    shell.run_cell_magic("agent", "--think off", "quick one")
    shell.run_cell_magic("agent", "", "careful one")
    first, second = server.requests
    assert first["thinking"] == {"type": "disabled"}
    assert second["thinking"] == {"type": "enabled", "budget_tokens": 4096}


def test_settings_for_thinking_session_budget_and_compaction_reach_the_run(
    shell: InteractiveShell,
    served: list[ScriptedServer],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = serve(
        served,
        monkeypatch,
        [Turn(blocks=[Text("one")], usage=EXPENSIVE), Turn(blocks=[Text("never")])],
    )
    shell.run_line_magic("config", "AgentMagics.thinking = 'adaptive'")
    shell.run_line_magic("config", "AgentMagics.session_budget_usd = 1.5")
    shell.run_cell_magic("agent", "--model claude-opus-4-6", "first")
    shell.run_cell_magic("agent", "", "second")
    assert server.requests[0]["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert len(server.requests) == 1
    out = capsys.readouterr().out
    assert "session_budget_usd ($1.5000)" in out
    shell.run_line_magic("agent", "status")
    status = capsys.readouterr().out
    assert "cost:     last run $0.0000 · session $5.0005 (session budget $1.50)" in status
    settings = next(c for c in shell.configurables if isinstance(c, AgentMagics))
    with pytest.raises(ValueError, match="thinking: 'lots' is not off, adaptive or a budget"):
        settings.thinking = "lots"
    with pytest.raises(ValueError, match="context_compact_fraction must be between 0 and 1"):
        settings.context_compact_fraction = 2.0


def test_an_invalid_thinking_setting_is_refused_and_the_next_run_uses_the_previous_one(
    shell: InteractiveShell,
    served: list[ScriptedServer],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = serve(served, monkeypatch, [Turn(blocks=[Text("done")])])
    shell.run_line_magic("config", "AgentMagics.model = 'claude-haiku-4-5'")
    shell.run_line_magic("config", "AgentMagics.thinking = '4096'")
    shell.run_line_magic("config", "AgentMagics.thinking = 'lots'")
    assert "thinking: 'lots' is not off, adaptive or a budget in tokens (e.g. 8000)" in caplog.text
    settings = next(c for c in shell.configurables if isinstance(c, AgentMagics))
    assert settings.thinking == 4096
    shell.run_cell_magic("agent", "", "go")
    assert server.requests[0]["thinking"] == {"type": "enabled", "budget_tokens": 4096}


@pytest.mark.parametrize(
    ("setting", "value", "kept"),
    [
        ("context_compact_fraction", "2.0", 0.85),
        ("deny", "['bash(rm*)']", []),
        ("api_key_env", "'sk-ant-key'", None),
    ],
)
def test_an_invalid_setting_given_with_config_keeps_the_previous_value(
    shell: InteractiveShell, setting: str, value: str, kept: object
) -> None:
    settings = next(c for c in shell.configurables if isinstance(c, AgentMagics))
    assert getattr(settings, setting) == kept
    shell.run_line_magic("config", f"AgentMagics.{setting} = {value}")
    assert getattr(settings, setting) == kept


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("--max-cost -1", "--max-cost must be a positive amount of USD"),
        ("--think lots", "--think: thinking: 'lots' is not off"),
    ],
)
def test_bad_run_flags_are_usage_errors_that_say_the_fix(
    shell: InteractiveShell, line: str, message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        shell.run_cell_magic("agent", line, "hello")


def one_run_then_restart(
    shell: InteractiveShell, served: list[ScriptedServer], monkeypatch: pytest.MonkeyPatch
) -> ScriptedServer:
    """A saved session of one run about March, then the extension unloaded as if the kernel restarted; the
    server answers the next run too."""
    server = serve(
        served,
        monkeypatch,
        [Turn(blocks=[Text("March is missing.")]), Turn(blocks=[Text("Still about March.")])],
    )
    shell.run_cell_magic("agent", "", "why is March missing?")
    shell.run_line_magic("unload_ext", "jupyter_agent")
    return server


def test_sessions_resume_and_export_in_a_new_shell(
    shell: InteractiveShell,
    served: list[ScriptedServer],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    server = one_run_then_restart(shell, served, monkeypatch)
    shell.run_line_magic("load_ext", "jupyter_agent")
    capsys.readouterr()
    shell.run_line_magic("agent", "sessions")
    listing = capsys.readouterr().out
    [saved] = list_sessions(tmp_path)
    assert (
        saved.id in listing and "'why is March missing?'" in listing and f"${saved.cost_usd:.4f}" in listing
    )
    shell.run_line_magic("agent", f"resume {saved.id}")
    assert f"resumed session {saved.id} (2 messages" in capsys.readouterr().out
    shell.run_cell_magic("agent", "", "and April?")
    after = server.requests[1]
    assert [texts(m) for m in after["messages"]] == [
        ["why is March missing?"],
        ["March is missing."],
        ["and April?"],
    ]
    # resumed exactly as it was sent: the same system prompt and tools, the same first messages
    first = server.requests[0]
    assert after["system"] == first["system"] and after["tools"] == first["tools"]
    assert after["messages"][1] == first_answer(server)
    shell.run_line_magic("agent", "export notes/session.md")
    assert "exported 4 messages to" in capsys.readouterr().out
    markdown = (tmp_path / "notes" / "session.md").read_text()
    assert "### User\n\nand April?" in markdown and "Still about March." in markdown
    with pytest.raises(UsageError, match="SESSION_NOT_FOUND: no saved session 'zzz'"):
        shell.run_line_magic("agent", "resume zzz")


def test_memory_and_compact_on_demand(
    shell: InteractiveShell,
    served: list[ScriptedServer],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    (tmp_path / "AGENTS.md").write_text("Use polars.")
    server = serve(
        served,
        monkeypatch,
        [Turn(blocks=[Text("ok")]), Turn(blocks=[Text("SUMMARY: asked hello")]), Turn(blocks=[Text("yes")])],
    )
    shell.run_line_magic("agent", "memory")
    assert f"{tmp_path / 'AGENTS.md'}  (11 characters)" in capsys.readouterr().out
    shell.run_cell_magic("agent", "", "hello")
    capsys.readouterr()
    shell.run_line_magic("agent", "compact")
    line = capsys.readouterr().out.strip()
    # the opening (a note, the AGENTS.md read as a tool result, the harness's closing note), the request, the answer
    assert line.startswith("conversation compacted on request: 6 messages") and "\n" not in line
    shell.run_cell_magic("agent", "", "next")
    last = server.requests[-1]
    assert "SUMMARY: asked hello" in json.dumps(last["messages"]) and '"ok"' not in json.dumps(
        last["messages"]
    )
    assert last["system"] == server.requests[0]["system"]
    assert (
        "Use polars." not in last["system"][0]["text"]
    )  # the repository's file: a tool result, not the prompt
    assert (
        last["messages"][:2] == server.requests[0]["messages"][:2]
    )  # handed over again after the compaction


def test_help_lists_the_session_subcommands_and_flags(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_line_magic("agent", "help")
    out = capsys.readouterr().out
    for usage in (
        "%agent resume [ID]",
        "%agent export [PATH]",
        "%agent sessions",
        "%agent memory",
        "%agent compact",
        "--max-cost USD",
        "--think [BUDGET]",
        "session_budget_usd",
        "context_compact_fraction",
    ):
        assert usage in out


def test_the_saved_session_and_its_export_hold_no_secret_value(
    shell: InteractiveShell,
    served: list[ScriptedServer],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    secret = "wh-7c1f0e9a2b3d4c5e6f"
    monkeypatch.setenv("WAREHOUSE_TOKEN", secret)
    (tmp_path / "conn.txt").write_text(f"token={secret}\n")
    serve(
        served,
        monkeypatch,
        [
            Turn(blocks=[ToolUse(name="Read", input={"file_path": "conn.txt"})]),
            Turn(blocks=[Text(f"The token is {secret}.")]),
        ],
    )
    shell.run_cell_magic("agent", "", f"connect with {secret}")
    shell.run_line_magic("agent", "export")
    [saved] = list_sessions(tmp_path)
    written = saved.path.read_text() + (tmp_path / f"agent-session-{saved.id}.md").read_text()
    assert secret not in written
    assert "[redacted: WAREHOUSE_TOKEN]" in written
    assert "connect with" in written


def test_status_says_which_frontend_holds_the_notebook_and_how_it_is_changed(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_line_magic("agent", "status")
    status = capsys.readouterr().out
    assert "notebook: — (not known)" in status
    assert "frontend: none (not in a Jupyter kernel)" in status
    assert "backend:  — (notebook tools need notebook_path)" in status


def test_context_shows_the_update_the_next_request_will_append(
    shell: InteractiveShell,
    served: list[ScriptedServer],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = serve(served, monkeypatch, [Turn(blocks=[Text("one")]), Turn(blocks=[Text("two")])])
    shell.run_cell_magic("agent", "", "first")
    capsys.readouterr()
    shell.run_line_magic("agent", "context")
    assert "The next request also says" not in capsys.readouterr().out  # nothing changed since the run
    shell.run_line_magic("agent", "mode plan")
    shell.run_line_magic("agent", "context")
    shown = capsys.readouterr().out
    assert "The next request also says:\n[Update to the session context" in shown
    assert "- Permission mode: plan: only read-only tools run;" in shown
    shell.run_cell_magic("agent", "", "second")
    assert "- Permission mode: plan: only read-only tools run;" in json.dumps(
        server.requests[1]["messages"][-1]
    )


def test_resume_skips_a_line_nested_200000_deep_names_it_and_the_next_run_carries_the_rest(
    shell: InteractiveShell,
    served: list[ScriptedServer],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    server = one_run_then_restart(shell, served, monkeypatch)
    [saved] = list_sessions(tmp_path)
    lines = saved.path.read_bytes().count(b"\n")
    with open(saved.path, "ab") as f:
        f.write(b'{"type": "request", "x": ' + b"[" * 200_000 + b"]" * 200_000 + b"}\n")
    shell.run_line_magic("load_ext", "jupyter_agent")
    capsys.readouterr()
    shell.run_line_magic("agent", f"resume {saved.id}")
    said = capsys.readouterr().out
    assert f"resumed session {saved.id} (2 messages" in said, said
    assert (
        f"The saved file is damaged: 1 line of the file could not be read and skipped: line {lines + 1} "
        "(nested too deeply to read)" in said
    ), said
    shell.run_cell_magic("agent", "", "and April?")
    assert [texts(m) for m in server.requests[1]["messages"]] == [
        ["why is March missing?"],
        ["March is missing."],
        ["and April?"],
    ]
