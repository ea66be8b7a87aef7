"""`%agent history` numbers each run once, also after `%agent reset` then `%agent resume` of the same session
(the runs are the same runs, and stay undoable) and after resuming another kernel's session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agent_testkit import HarnessFactory, texts

from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.undo.rewind import RewindRefused, choose, rewind


def _saving(tmp_path: Path) -> dict[str, Any]:
    return {"project": tmp_path / "analysis.ipynb", "sessions_root": tmp_path / "store"}


def test_resuming_this_kernels_session_after_a_reset_lists_each_run_once_and_rewind_undoes_its_write(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    write = ToolUse(name="Write", input={"file_path": "notes.txt", "content": "draft\n"})
    h = harness(
        [Turn(blocks=[write]), Turn(blocks=[Text("wrote")]), Turn(blocks=[Text("two")])],
        tools=file_tools(),
        mode="acceptEdits",
        session_options=_saving(tmp_path),
    )
    h.run("write notes")
    h.run("second")
    assert (tmp_path / "notes.txt").read_text() == "draft\n"
    h.session.reset()
    h.session.resume(h.session.load_saved())
    assert [(j.run_id, j.request) for j in h.session.history] == [(1, "write notes"), (2, "second")]
    journal = choose(h.session, 1)
    said = h.worker.submit(rewind(h.session, journal, keep_changes=False)).result(timeout=30)
    assert "rewound to before run 1" in said
    assert not (tmp_path / "notes.txt").exists()
    assert h.session.conversation.messages == []


def test_resuming_another_session_numbers_its_runs_after_this_kernels_and_the_next_run_after_those(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    other = harness([Turn(blocks=[Text("a1")]), Turn(blocks=[Text("a2")])], session_options=_saving(tmp_path))
    other.run("first of A")
    other.run("second of A")
    saved_a = other.session.load_saved(other.session.recorder.id if other.session.recorder else None)

    h = harness(
        [Turn(blocks=[Text("c1")]), Turn(blocks=[Text("next")]), Turn(blocks=[Text("again")])],
        session_options=_saving(tmp_path),
    )
    h.run("own run")
    h.session.resume(saved_a)
    assert [(j.run_id, j.request) for j in h.session.history] == [
        (1, "own run"),
        (2, "first of A"),
        (3, "second of A"),
    ]
    h.run("after the resume")
    assert [j.run_id for j in h.session.history] == [1, 2, 3, 4]
    with pytest.raises(RewindRefused, match="REWIND_PAST_RESUME"):
        choose(h.session, 1)
    journal = choose(h.session, 3)
    assert journal.request == "second of A"
    h.worker.submit(rewind(h.session, journal, keep_changes=False)).result(timeout=30)
    said = [text for m in h.session.conversation.messages for text in texts(m)]
    assert said == ["first of A", "a1"]
