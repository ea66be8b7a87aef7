"""The kernel note's two facts of issue #42: the package's own lines are not the user's work, and a cell the
model read that was edited since is named (by id, once per edit). The kernel path is in
tests/kernel/test_kernel_note_edits.py; here the pieces, with a real IPython shell for the watch."""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.base.agent_cells import is_package_cell, is_package_line
from jupyter_agent.tools.ledger import ReadLedger
from jupyter_agent.watch.note import render_note
from jupyter_agent.watch.watcher import CellRun, KernelWatcher, SinceLastLook


@pytest.mark.parametrize(
    "line",
    [
        "%load_ext jupyter_agent",
        "  %reload_ext jupyter_agent  ",
        "%unload_ext jupyter_agent",
        "%agent mode plan",
    ],
)
def test_the_packages_own_lines(line: str) -> None:
    assert is_package_line(line)
    assert is_package_cell(f"\n{line}\n\n")


@pytest.mark.parametrize(
    "source",
    ["%load_ext autoreload", "%load_ext jupyter_agent_extra", "x = 1", "%load_ext jupyter_agent\nx = 1", ""],
)
def test_a_cell_with_anything_else_is_the_users(source: str) -> None:
    assert not is_package_cell(source)


def test_a_cell_that_loads_the_package_above_the_users_code_shows_the_users_first_line() -> None:
    cell = CellRun(execution_count=1, cell_id="c", source="%load_ext jupyter_agent\nrows = 5\n")
    note = render_note(SinceLastLook(cells=(cell,)))
    assert note is not None
    assert "  [1] cell c: rows = 5\n" in note.text  # and no "…": nothing more of the user's in it
    assert "load_ext" not in note.text


def test_a_watched_shell_does_not_record_an_agent_command(shell: InteractiveShell) -> None:
    watcher = KernelWatcher(shell).start()
    try:
        shell.run_cell("%agent status")  # not a magic in this shell: it fails, and is still not news
        shell.run_cell("y = 2")
        seen = watcher.look()
    finally:
        watcher.stop()
    assert [cell.source for cell in seen.cells] == ["y = 2"]


def test_edited_cells_make_a_note_of_their_own_and_lead_it() -> None:
    note = render_note(SinceLastLook(), edited=["clean", "load"])
    assert note is not None
    assert note.text == (
        "<kernel-activity>\nSince your last turn, in the user's kernel:\n"
        "Cells you read that were edited since (read them again before editing): 'clean', 'load'\n"
        "</kernel-activity>"
    )
    assert render_note(SinceLastLook(), edited=[]) is None


def test_the_ledger_tells_an_edit_of_a_read_cell_once_per_content() -> None:
    ledger = ReadLedger()
    ledger.record("nb#a", "a = 1")
    ledger.record("nb#b", "b = 1")
    assert ledger.changed_since_read({"nb#a": "a = 1", "nb#b": "b = 1", "nb#c": "c = 1"}) == []
    assert ledger.changed_since_read({"nb#a": "a = 2", "nb#b": "b = 1", "nb#c": "c = 9"}) == ["nb#a"]
    assert ledger.changed_since_read({"nb#a": "a = 2"}) == []  # told already
    assert ledger.changed_since_read({"nb#a": "a = 3"}) == ["nb#a"]  # a new edit is news again
    ledger.record("nb#a", "a = 3")  # the model read it again
    assert ledger.changed_since_read({"nb#a": "a = 3"}) == []
    assert ledger.keys_under("nb#") == ["nb#a", "nb#b"]
