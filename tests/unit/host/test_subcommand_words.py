"""`%agent` lines a user gets slightly wrong: words after a subcommand that takes none, and a `%%agent` option
typed on the line magic. Each is a one-line UsageError that says the fix; nothing is undone and nothing is sent
to the model on a guess."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedServer]:
    """One run that writes `notes.md`; any further request would find the script exhausted."""
    turns = [
        Turn(blocks=[ToolUse(name="Write", input={"file_path": "notes.md", "content": "kept\n"})]),
        Turn(blocks=[Text("Wrote it.")]),
    ]
    with ScriptedServer(turns) as started:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", started.url)
        yield started


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("undo 3", r"%agent undo takes no argument but --force, not '3'; run `%agent undo` alone"),
        ("undo all runs", r"%agent undo takes no argument but --force, not 'all runs'"),
        ("reset everything", r"%agent reset takes no argument"),
        ("history --all", r"%agent history takes no argument, not '--all'"),
        ("status now", r"%agent status takes no argument"),
    ],
)
def test_words_after_a_subcommand_that_takes_none_are_refused_and_nothing_is_undone(
    shell: InteractiveShell, server: ScriptedServer, tmp_path: Path, line: str, message: str
) -> None:
    shell.run_cell_magic("agent", "--mode bypassPermissions", "write notes")
    assert (tmp_path / "notes.md").read_text() == "kept\n"

    with pytest.raises(UsageError, match=message):
        shell.run_line_magic("agent", line)

    assert (tmp_path / "notes.md").read_text() == "kept\n"
    assert len(server.requests) == 2
    assert "(undone)" not in _history(shell)


@pytest.mark.parametrize(
    ("line", "flag"),
    [
        ("--new", "--new"),
        ("--mode plan", "--mode"),
        ("--max-turns=3", "--max-turns"),
        ("--quiet --new", "--quiet"),
        ("--mod plan", "--mode"),
    ],
)
def test_a_cell_option_on_the_line_magic_points_to_the_cell_and_sends_nothing(
    shell: InteractiveShell, server: ScriptedServer, line: str, flag: str
) -> None:
    with pytest.raises(UsageError, match=rf"options such as {flag} go on a %%agent cell's first line"):
        shell.run_line_magic("agent", line)

    assert server.requests == []


def test_subcommands_with_arguments_and_one_line_requests_still_work(
    shell: InteractiveShell, server: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_line_magic("agent", "mode plan")
    shell.run_line_magic("agent", "allow Bash(git status*)")
    assert "allow: Bash(git status*)" in capsys.readouterr().out

    shell.run_line_magic("agent", "mode bypassPermissions")
    shell.run_line_magic("agent", "write the notes please")

    assert server.requests[0]["messages"][-1]["content"][-1]["text"].endswith("write the notes please")


def _history(shell: InteractiveShell) -> str:
    from jupyter_agent.host.texts import history_report
    from jupyter_agent.magics import AgentMagics

    magics = shell.magics_manager.registry["AgentMagics"]
    assert isinstance(magics, AgentMagics)
    return history_report(magics.kernel_agent.session).text
