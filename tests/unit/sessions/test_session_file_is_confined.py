"""A session file is written and read under the package's confinement rule: replaced by a symlink (to a file
elsewhere), it is neither appended to nor read through the link, and the run says once that it is not saved."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jupyter_agent.base.errors import ToolError
from jupyter_agent.sessions.log import SessionLog
from jupyter_agent.sessions.recorder import SessionRecorder
from jupyter_agent.sessions.store import read_records


def test_a_session_file_swapped_for_a_link_is_not_appended_to_nor_read(tmp_path: Path) -> None:
    base = Path(os.path.realpath(tmp_path))
    elsewhere = base / "elsewhere.txt"
    elsewhere.write_text("someone else's file\n")
    log = SessionLog(base / "sessions" / "s.jsonl")
    log.append([{"type": "request", "text": "first"}])
    log.path.unlink()
    log.path.symlink_to(elsewhere)
    with pytest.raises(ToolError) as refused:
        log.append([{"type": "request", "text": "second"}])
    assert refused.value.code == "OUTSIDE_ROOTS"
    with pytest.raises(ToolError):
        read_records(log.path)
    assert elsewhere.read_text() == "someone else's file\n"


def test_the_recorder_reports_the_refusal_as_a_session_not_saved(tmp_path: Path) -> None:
    base = Path(os.path.realpath(tmp_path))
    recorder = SessionRecorder(project=base / "a.ipynb", root=base / "store")
    (base / "elsewhere.txt").write_text("x\n")
    recorder.path.parent.mkdir(parents=True)
    recorder.path.symlink_to(base / "elsewhere.txt")
    recorder.request(run_id=1, text="hi")
    assert (base / "elsewhere.txt").read_text() == "x\n"
    assert recorder.error is not None and recorder.error.startswith(
        f"SESSION_NOT_SAVED: writing {recorder.path}"
    )
