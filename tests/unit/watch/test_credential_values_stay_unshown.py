"""A variable whose name says it holds a credential (`token`, `api_key`, `DB_PASSWORD`) has its type and length
shown, never its characters: not in the since-last-turn note, not in ListVariables, not in Debug's locals.

The README promises that a look at a credential asks first (Inspect does); these three read the namespace
without asking, so they must not show such a value at all. The key below is not in the secret registry (it is
no environment variable), so masking cannot catch it: only the name can.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from dispatch_harness import ToolHarness
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.builtin_tools.kernel.debug import Debug
from jupyter_agent.builtin_tools.kernel.variables import ListVariables
from jupyter_agent.watch.note import render_note
from jupyter_agent.watch.watcher import KernelWatcher

KEY_BODY = "Zq7xW2pL9vR4tY6uI8oP0aS3dF5gH1jK"
#: The key is decoded in the cell, so the cell's own text (which the note quotes) does not hold it.
ENCODED = base64.b64encode(f"sk-ant-api03-{KEY_BODY}".encode()).decode()
CELL = f"""\
import base64
token = base64.b64decode("{ENCODED}").decode()
db_password = token[::-1][:32]
rows = 12
def load(api_key):
    secret = api_key
    return {{}}["March"]
load(token)
"""


def leaks(text: str) -> bool:
    """Any 8 characters of the key or of the password (the key reversed) in `text`."""
    return any(
        KEY_BODY[i : i + 8] in text or KEY_BODY[::-1][i : i + 8] in text for i in range(len(KEY_BODY) - 7)
    )


def test_the_note_lists_a_credential_variable_without_its_value(shell: InteractiveShell) -> None:
    watcher = KernelWatcher(shell).start()
    try:
        shell.run_cell(CELL)
        note = render_note(watcher.look())
    finally:
        watcher.stop()
    assert note is not None
    assert "new      token  str 45" in note.text
    assert "new      rows  int = 12" in note.text  # an ordinary scalar keeps its value
    assert not leaks(note.text), note.text


def test_listvariables_shows_type_and_length_of_a_credential_but_not_its_value(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    shell.run_cell(CELL)
    tools = ToolHarness(tmp_path, [ListVariables()], mode="plan", namespace=shell.user_ns)
    listing = tools.ok("ListVariables").content
    assert not leaks(listing), listing
    token_row = next(line for line in listing.splitlines() if line.startswith("token "))
    assert "str" in token_row and "45" in token_row and "value not shown" in token_row
    assert "12" in next(line for line in listing.splitlines() if line.startswith("rows "))


@pytest.mark.parametrize("frame", [0, -1])
def test_debug_locals_name_a_credential_but_do_not_show_it(
    shell: InteractiveShell, tmp_path: Path, frame: int
) -> None:
    shell.run_cell(CELL)
    tools = ToolHarness(tmp_path, [Debug(repr_seconds=0.5)], mode="plan", namespace=shell.user_ns)
    shown = tools.ok("Debug", frame=frame).content
    assert not leaks(shown), shown
    for hidden in ("token",) if frame == 0 else ("api_key", "secret"):
        assert f"  {hidden} (str 45) = (value not shown" in shown
