"""What the agent learns about the user's kernel: the since-last-turn note, `%agent fix`'s request, Debug.

Driven through a real IPython `InteractiveShell`: cells run with `run_cell`, so IPython's own events,
tracebacks and `sys.last_value` are the real ones.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from dispatch_harness import ToolHarness
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.base.result import ToolResult
from jupyter_agent.builtin_tools.kernel import tracebacks
from jupyter_agent.builtin_tools.kernel.debug import Debug
from jupyter_agent.builtin_tools.kernel.execution import CodeRun
from jupyter_agent.watch.fix import fix_request
from jupyter_agent.watch.note import NoteBudget, render_note
from jupyter_agent.watch.watcher import Figure, KernelWatcher


@pytest.fixture
def watcher(shell: InteractiveShell) -> Iterator[KernelWatcher]:
    started = KernelWatcher(shell).start()
    yield started
    started.stop()


def debug(args: dict[str, Any], tmp_path: Path) -> ToolResult:
    return ToolHarness(tmp_path, [Debug(repr_seconds=0.5)], mode="plan", namespace={}).call("Debug", args)


FAILING = """\
def load(path):
    rows = [1, 2, 3]
    month = "March"
    return rows[10]

result = load("sales.csv")
"""


def test_the_note_names_the_users_last_error_with_its_source_line(
    shell: InteractiveShell, watcher: KernelWatcher
) -> None:
    shell.run_cell("x = 1")
    shell.run_cell(FAILING)
    note = render_note(watcher.look())
    assert note is not None
    assert "IndexError: list index out of range" in note.text
    assert "return rows[10]" in note.text
    assert "in load at" in note.text
    assert "[1]" in note.text and "x = 1" in note.text
    assert "def load(path):" in note.text  # the failing cell's first line


def test_no_note_when_nothing_ran_since_the_last_look(
    shell: InteractiveShell, watcher: KernelWatcher
) -> None:
    shell.run_cell("a = [1, 2]")
    assert render_note(watcher.look()) is not None
    assert render_note(watcher.look()) is None
    assert watcher.look().empty


def test_the_note_lists_new_changed_and_deleted_variables_with_shapes(
    shell: InteractiveShell, watcher: KernelWatcher
) -> None:
    shell.run_cell("import pandas as pd\nkeep = 5\ngone = 1\ndf = pd.DataFrame({'a': [1, 2]})")
    watcher.look()
    shell.run_cell("df.loc[2] = [3]\ndel gone\nnew_list = [1, 2, 3]")
    note = render_note(watcher.look())
    assert note is not None
    assert "changed  df  DataFrame (3, 1)" in note.text  # an in-place change of shape counts
    assert "new      new_list  list 3" in note.text
    assert "deleted  gone" in note.text
    assert "keep" not in note.text  # unchanged variables are not repeated


def test_agent_cells_and_what_the_agent_runs_are_not_news(
    shell: InteractiveShell, watcher: KernelWatcher
) -> None:
    shell.run_cell("%%agent\nhello")  # fails (extension not loaded) but is never reported
    with watcher.paused():
        shell.run_cell("made_by_agent = 1")
    assert watcher.look().empty
    shell.run_cell("y = 2")
    note = render_note(watcher.look())
    assert note is not None and "made_by_agent" not in note.text and "%%agent" not in note.text


def test_peek_does_not_move_the_mark(shell: InteractiveShell, watcher: KernelWatcher) -> None:
    shell.run_cell("z = 3")
    first = render_note(watcher.peek())
    assert first is not None and render_note(watcher.peek()) == first
    assert render_note(watcher.look()) == first


def test_the_note_keeps_to_its_budget_and_counts_what_it_left_out(
    shell: InteractiveShell, watcher: KernelWatcher
) -> None:
    for i in range(30):
        shell.run_cell(f"v{i} = {i}")
    note = render_note(watcher.look(), NoteBudget(chars=600, cells=5))
    assert note is not None
    assert len(note.text) <= 600
    assert "(25 earlier cell(s) not listed)" in note.text


def test_figures_are_attached_within_the_image_budget(watcher: KernelWatcher) -> None:
    watcher.figures.extend(
        [
            Figure(execution_count=3, media_type="image/png", data="A" * 10),
            Figure(execution_count=4, media_type="image/png", data="B" * 10),
            Figure(execution_count=5, media_type="image/png", data="C" * 5_000),
        ]
    )
    note = render_note(watcher.look(), NoteBudget(images=2, image_chars=1_000))
    assert note is not None
    assert [image.data for image in note.images] == ["A" * 10, "B" * 10]  # the too-large one is left out
    assert "Figures: 3 displayed by cell(s) [3], [4], [5]" in note.text


def test_fix_request_carries_the_failing_cell_and_its_traceback(
    shell: InteractiveShell, watcher: KernelWatcher
) -> None:
    shell.run_cell(FAILING)
    request = fix_request(watcher.last_error)
    assert request is not None
    assert 'result = load("sales.csv")' in request
    assert "IndexError: list index out of range" in request
    assert ">    4      return rows[10]" in request


def test_each_cells_last_run_is_kept_for_fixing_that_cell(
    shell: InteractiveShell, watcher: KernelWatcher
) -> None:
    shell.run_cell(FAILING, cell_id="loader")
    shell.run_cell("1 / 0", cell_id="other")
    run = watcher.last_run_of("loader")
    assert run is not None and isinstance(run.error, IndexError)
    assert watcher.last_error is not None and watcher.last_error.cell_id == "other"
    shell.run_cell("rows = [1]", cell_id="loader")  # fixed by hand: its last run no longer raised
    again = watcher.last_run_of("loader")
    assert again is not None and again.error is None
    assert watcher.last_run_of("never-run") is None


def test_fix_request_is_none_without_an_error(shell: InteractiveShell, watcher: KernelWatcher) -> None:
    shell.run_cell("ok = 1")
    assert fix_request(watcher.last_error) is None


def test_debug_shows_the_innermost_frames_locals_and_source(shell: InteractiveShell, tmp_path: Path) -> None:
    shell.run_cell(FAILING)
    result = debug({}, tmp_path)
    assert not result.is_error, result.content
    assert "→ 1: load at" in result.content
    assert "month (str 5) = 'March'" in result.content
    assert "rows (list 3) = [1, 2, 3]" in result.content
    assert "return rows[10]" in result.content


def test_debug_frame_zero_is_the_cell_and_shows_only_the_names_it_uses(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    shell.run_cell("unrelated = 'not shown'")
    shell.run_cell(FAILING)
    result = debug({"frame": 0}, tmp_path)
    assert "frame 0: <module>" in result.content
    assert "unrelated" not in result.content
    assert "load (function)" in result.content


def test_debug_out_of_range_frame_says_the_range(shell: InteractiveShell, tmp_path: Path) -> None:
    shell.run_cell(FAILING)
    result = debug({"frame": 7}, tmp_path)
    assert result.error_code == "INVALID_ARGS"
    assert "use 0..1 or -1..-2" in result.content


def test_debug_without_an_exception_says_what_to_do(
    shell: InteractiveShell, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        tracebacks, "_agents_last", None
    )  # what earlier tests' RunCode raised in this process
    shell.run_cell("fine = 1")
    result = debug({}, tmp_path)
    assert result.error_code == "NOT_AVAILABLE"
    assert "ask the user rather than re-running their cells" in result.content


def test_debug_sees_what_runcode_raised_and_a_newer_user_cells_error_and_says_which(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    shell.run_cell("1 / 0")
    job = CodeRun(FAILING, {}, shell=shell, timeout=30, max_chars=2000, max_image_bytes=1000)
    job.run()
    agents = debug({}, tmp_path)
    assert agents.content.startswith("IndexError: list index out of range  (raised by RunCode)"), (
        agents.content
    )
    assert "month (str 5) = 'March'" in agents.content
    shell.run_cell("{}['March']")
    users = debug({}, tmp_path)
    assert users.content.startswith("KeyError: 'March'  (raised by a cell the user ran)"), users.content


def test_debug_does_not_wait_for_a_hanging_repr(shell: InteractiveShell, tmp_path: Path) -> None:
    import threading

    release = threading.Event()

    class Slow:
        def __repr__(self) -> str:
            release.wait(5)
            return "Slow()"

    shell.user_ns["Slow"] = Slow
    shell.run_cell("def f():\n    slow = Slow()\n    raise ValueError('boom')\nf()")
    try:
        result = debug({}, tmp_path)
    finally:
        release.set()
    assert "slow (Slow) = (repr did not finish in 0.5 s)" in result.content
    assert "ValueError: boom" in result.content


def test_debug_frame_locals_of_a_dataframe_are_summarised(shell: InteractiveShell, tmp_path: Path) -> None:
    shell.user_ns["pd"] = pd
    shell.run_cell("def g():\n    frame = pd.DataFrame({'a': range(1000)})\n    raise KeyError('b')\ng()")
    result = debug({}, tmp_path)
    assert "frame (DataFrame (1000, 1)" in result.content
