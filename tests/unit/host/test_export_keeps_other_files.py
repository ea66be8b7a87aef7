"""`%agent export PATH` never writes over a file that is not an earlier export: `%agent export analysis.ipynb`
(read as "export into my notebook") would replace the notebook with Markdown. A directory gets the export
inside it; an earlier export may be written again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.testing import ScriptedServer, Text, Turn


@pytest.fixture
def answered(shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    """The shell after one run, so there is a conversation to export."""
    server = ScriptedServer([Turn(blocks=[Text("the answer")])]).start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    try:
        shell.run_cell_magic("agent", "", "a question")
        yield shell
    finally:
        server.stop()


@pytest.mark.parametrize("name", ["analysis.ipynb", "sales.csv", "notes.md"])
def test_export_refuses_to_write_over_a_file_that_is_not_an_export(
    answered: InteractiveShell, name: str
) -> None:
    kept = Path.cwd() / name
    kept.write_bytes(b'{"cells": []}\n')
    with pytest.raises(UsageError, match=rf"EXPORT_TARGET_EXISTS: '.*{name}' exists .* give a new file name"):
        answered.run_line_magic("agent", f"export {name}")
    assert kept.read_bytes() == b'{"cells": []}\n'


def test_an_earlier_export_is_written_again(
    answered: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    answered.run_line_magic("agent", "export talk.md")
    answered.run_line_magic("agent", "export talk.md")
    assert capsys.readouterr().out.count("to " + str(Path.cwd() / "talk.md")) == 2
    assert "the answer" in (Path.cwd() / "talk.md").read_text()


def test_a_directory_gets_the_export_inside_it(answered: InteractiveShell) -> None:
    (Path.cwd() / "exports").mkdir()
    answered.run_line_magic("agent", "export exports")
    (written,) = (Path.cwd() / "exports").glob("agent-session-*.md")
    assert "the answer" in written.read_text()


def test_an_export_through_a_link_out_of_the_working_directory_is_refused(
    answered: InteractiveShell, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (Path.cwd() / "shared").symlink_to(outside)  # e.g. a link a repository carries
    with pytest.raises(
        UsageError, match=r"%agent export: OUTSIDE_ROOTS: the file '.*shared/talk.md' is outside"
    ):
        answered.run_line_magic("agent", "export shared/talk.md")
    with pytest.raises(UsageError, match=r"%agent export: OUTSIDE_ROOTS: "):
        answered.run_line_magic("agent", f"export {outside / 'talk.md'}")
    assert list(outside.iterdir()) == []
