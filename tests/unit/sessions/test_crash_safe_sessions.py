"""Crash-safe sessions: a write that fails part-way (a full disk) leaves whole lines only and is written again
later, resume reports a gap instead of replaying a broken conversation, and a data dir that cannot be
written warns once per session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from agent_testkit import HarnessFactory, assert_valid_request

import jupyter_agent
from jupyter_agent.agent import Notice
from jupyter_agent.sessions import load_session
from jupyter_agent.testing import Text, Turn

REPO = Path(jupyter_agent.__file__).resolve().parent.parent

#: A recorder writing a conversation while the file size limit (RLIMIT_FSIZE, as a full disk would) cuts a
#: write part-way; then the limit is lifted and the next sync goes through.
FULL_DISK = """
import json, resource, signal, sys
from pathlib import Path
from jupyter_agent.agent.conversation import Conversation
from jupyter_agent.sessions.recorder import SessionRecorder

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # over the limit, write() fails with EFBIG instead
root = Path(sys.argv[1])
recorder = SessionRecorder(project=root / "analysis.ipynb", root=root / "store")
conversation = Conversation()
conversation.add_user_text("first request")
conversation.add_assistant([{"type": "text", "text": "first answer"}])
recorder.sync(conversation)
size = recorder.path.stat().st_size
_, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 100, hard))
conversation.add_user_text("second request " + "x" * 5000)
conversation.add_assistant([{"type": "text", "text": "second answer"}])
recorder.sync(conversation)
after_failure = recorder.path.read_bytes()
warnings = [recorder.take_warning(), recorder.take_warning()]
resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
conversation.add_user_text("third request")
recorder.sync(conversation)
print(json.dumps({
    "size_before": size,
    "after_failure": len(after_failure),
    "ends_with_newline": after_failure.endswith(b"\\n"),
    "warnings": warnings,
    "path": str(recorder.path),
    "messages": conversation.messages,
}))
"""


def test_a_write_cut_part_way_leaves_whole_lines_and_is_written_again_later(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=True,
    )
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["after_failure"] == report["size_before"]  # cut back: no half line in the file
    first, second = report["warnings"]
    assert first.startswith("SESSION_NOT_SAVED: writing ") and "File too large" in first
    assert "this session is not being saved until that is fixed (said once" in first
    assert second is None
    saved = load_session(Path(report["path"]))
    assert (saved.gaps, saved.skipped_lines) == ([], 0)
    assert saved.messages == report["messages"]  # the failed part was written with the next sync
    for raw in Path(report["path"]).read_bytes().splitlines():
        json.loads(raw)


def _record(kind: str, **fields: Any) -> str:
    return json.dumps({"type": kind, **fields})


def test_resume_reports_a_gap_and_never_sends_two_user_turns_in_a_row(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    options = {"project": tmp_path / "analysis.ipynb", "sessions_root": tmp_path / "store"}
    h = harness([Turn(blocks=[Text("resumed fine")])], session_options=options)
    directory = h.session.recorder.path.parent if h.session.recorder is not None else tmp_path
    directory.mkdir(parents=True, exist_ok=True)
    user = {"role": "user", "content": [{"type": "text", "text": "first request"}]}
    answer = {"role": "assistant", "content": [{"type": "text", "text": "first answer"}]}
    later_user = {"role": "user", "content": [{"type": "text", "text": "third request"}]}
    lines = [
        _record(
            "session",
            id="20990101-000000-aaaaaa",
            created="2099-01-01T00:00:00",
            project=str(options["project"]),
        ),
        _record("request", run_id=1, text="first request"),
        _record("messages", start=0, messages=[user, answer]),
        # the records holding messages 3 and 4 were never written (the disk was full); this one starts at 4
        _record("messages", start=4, messages=[later_user]),
        _record("run", run_id=2, model="m", reason="end_turn", turns=1, cost_usd=0.0, usage={}),
    ]
    (directory / "20990101-000000-aaaaaa.jsonl").write_text("\n".join(lines) + "\n")
    saved = h.session.load_saved()
    assert saved.messages == [user, answer]
    assert (
        saved.damage
        == "messages 3–4 were never saved (a write failed), so the conversation resumes from before them"
    )
    h.session.resume(saved)
    assert h.run("carry on").reason == "end_turn"
    body = h.server.requests[-1]
    assert_valid_request(body)
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]


def test_a_data_dir_that_cannot_be_written_warns_once_per_session(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the sessions directory should be\n")
    h = harness(
        [Turn(blocks=[Text("one")]), Turn(blocks=[Text("two")]), Turn(blocks=[Text("three")])],
        session_options={"project": tmp_path / "analysis.ipynb", "sessions_root": blocked / "store"},
    )
    for request in ("one", "two", "three"):
        assert h.run(request).reason == "end_turn"
    warnings = [n.message for n in h.of(Notice) if "SESSION_NOT_SAVED" in n.message]
    assert len(warnings) == 1
    assert warnings[0].startswith(f"SESSION_NOT_SAVED: writing {blocked}/store/")
