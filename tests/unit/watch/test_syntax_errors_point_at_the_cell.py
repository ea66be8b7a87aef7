"""A cell with a SyntaxError never ran: `%agent fix`'s request, the since-last-turn note and Debug show the line
it points to with a caret, not IPython's compiler (compilerop.py), whose source said nothing about the cell."""

from __future__ import annotations

from pathlib import Path

import pytest
from dispatch_harness import ToolHarness
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.builtin_tools.kernel.debug import Debug
from jupyter_agent.watch.fix import fix_request
from jupyter_agent.watch.note import render_note
from jupyter_agent.watch.watcher import KernelWatcher

CELLS = {
    "unclosed": ("total = 0\nfor row in rows\n    total += row\n", "for row in rows", "SyntaxError"),
    "indent": ("def f():\nreturn 1\n", "return 1", "IndentationError"),
}


@pytest.mark.parametrize("case", sorted(CELLS))
def test_fix_and_the_note_show_the_offending_line_and_not_the_compiler(
    shell: InteractiveShell, case: str
) -> None:
    source, line, kind = CELLS[case]
    watcher = KernelWatcher(shell).start()
    try:
        shell.run_cell(source)
        seen = watcher.look()
    finally:
        watcher.stop()
    (failed,) = [cell for cell in seen.cells if cell.error is not None]
    request = fix_request(failed) or ""
    note = render_note(seen)
    assert note is not None
    for text in (request, note.text):
        assert f"{kind}: " in text
        assert "compilerop" not in text and "ast_parse" not in text, text
        at = text.index(f"    {line}\n")
        caret = text[at:].splitlines()[1]
        assert caret.strip() == "^", text


def test_debug_on_a_syntax_error_says_the_cell_never_ran_and_where_to_fix_it(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    shell.run_cell(CELLS["unclosed"][0])
    result = ToolHarness(tmp_path, [Debug()], mode="plan", namespace={}).call("Debug")
    assert result.error_code == "NOT_AVAILABLE"
    assert "was raised while the cell was compiled, before any of it ran" in result.content
    assert "    for row in rows\n" in result.content and "compilerop" not in result.content
