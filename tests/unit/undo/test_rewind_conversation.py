"""`%agent rewind`'s conversation side, without a kernel: the cut lands exactly where the run's request went in
(also when that request merged into a user message of tool results), the cut is saved and replayed, and a
run before a compaction, a reset or a resume is refused with the runs that can be rewound."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from agent_testkit import Harness, HarnessFactory, assert_valid_request, texts

from jupyter_agent.agent.conversation import Conversation
from jupyter_agent.sessions import load_session
from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.tools import ToolResult, tool
from jupyter_agent.undo.rewind import RewindRefused, choose, rewind


@tool(read_only=True)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _saving(tmp_path: Path) -> dict[str, Any]:
    return {"project": tmp_path / "analysis.ipynb", "sessions_root": tmp_path / "store"}


def rewind_to(h: Harness, run_id: int | None, *, keep_changes: bool = False) -> str:
    journal = choose(h.session, run_id)
    return h.worker.submit(rewind(h.session, journal, keep_changes=keep_changes)).result(timeout=30)


def test_truncate_takes_a_request_back_out_of_the_user_message_it_merged_into() -> None:
    conversation = Conversation()
    conversation.add_user_text("count")
    conversation.add_assistant([{"type": "tool_use", "id": "t1", "name": "add", "input": {}}])
    conversation.add_tool_results([("t1", ToolResult.ok("2"))])
    before = copy.deepcopy(conversation.messages)
    position = conversation.position()
    assert position == (3, 1)
    conversation.take_unsaved()  # saved up to here
    conversation.add_user_text("go on")  # merges into the tool results' message
    conversation.add_assistant([{"type": "text", "text": "went on"}])
    assert conversation.truncate(position) == 1
    assert conversation.messages == before
    start, changed = conversation.take_unsaved()
    assert (start, changed) == (2, before[2:])  # the store rewrites the cut message


def test_a_rewind_after_a_run_that_stopped_at_its_tool_results_sends_those_results_again(
    harness: HarnessFactory,
) -> None:
    loop = [Turn(blocks=[ToolUse(name="add", input={"a": i, "b": 0})]) for i in range(2)]
    h = harness([*loop, Turn(blocks=[Text("done")]), Turn(blocks=[Text("other")])], tools=[add])
    h.run("count", config={"max_turns": 2})
    after_run_1 = copy.deepcopy(h.session.conversation.messages)
    h.run("go on")
    said = rewind_to(h, None)
    assert said.startswith("rewound to before run 2: the conversation lost run 2 (1 message(s))")
    assert h.session.conversation.messages == after_run_1
    h.run("something else")
    sent = h.server.requests[-1]
    assert_valid_request(sent)
    assert (
        "go on" not in str(sent["messages"])
        and sent["messages"][-1]["content"][-1]["text"] == "something else"
    )


def test_the_rewind_is_saved_and_the_file_replays_to_the_rewound_conversation(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    h = harness(
        [Turn(blocks=[Text("one")]), Turn(blocks=[Text("two")]), Turn(blocks=[Text("three")])],
        session_options=_saving(tmp_path),
    )
    h.run("first")
    h.run("second")
    rewind_to(h, 2)
    [path] = list((tmp_path / "store").rglob("*.jsonl"))
    saved = load_session(path)
    assert saved.messages == h.session.conversation.messages and len(saved.messages) == 2
    assert [(r.run_id, r.rewound, r.message_start) for r in saved.requests] == [
        (1, False, (0, 0)),
        (2, True, (2, 1)),
    ]
    h.run("third")
    saved = load_session(path)
    assert [texts(m)[0] for m in saved.messages] == ["first", "one", "third", "three"]


def test_a_run_before_a_compaction_reset_or_resume_is_refused_naming_the_runs_that_can_be(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    h = harness([Turn(blocks=[Text(t)]) for t in ("one", "two", "three")], session_options=_saving(tmp_path))
    h.run("first")
    h.session.conversation.replace(h.session.conversation.messages)  # what a compaction does
    h.run("second")
    with pytest.raises(RewindRefused, match=r"^REWIND_PAST_COMPACTION: the conversation before run 1 was "):
        choose(h.session, 1)
    h.session.reset()
    with pytest.raises(RewindRefused) as reset:
        choose(h.session, 2)
    assert str(reset.value).startswith(
        "REWIND_PAST_RESET: the conversation was reset (%agent reset) after run 2"
    )
    assert str(reset.value).endswith("use %agent reset")
    h.run("third")
    with pytest.raises(RewindRefused, match="rewind to run 3 or later"):
        choose(h.session, 2)
    with pytest.raises(
        RewindRefused, match=r"^RUN_NOT_FOUND: there is no run 7; runs that can be rewound: 3"
    ):
        choose(h.session, 7)


def test_after_a_rewind_an_edit_needs_a_fresh_read_of_what_the_rewound_run_read(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    from agent_testkit import result_text, tool_results

    from jupyter_agent.builtin_tools.files import file_tools

    (tmp_path / "a.txt").write_text("one\n")
    edit = {"file_path": "a.txt", "old_string": "one", "new_string": "two"}
    h = harness(
        [
            Turn(blocks=[ToolUse(name="Read", input={"file_path": "a.txt"})]),
            Turn(blocks=[Text("read it")]),
            Turn(blocks=[ToolUse(name="Edit", input=edit)]),
            Turn(blocks=[Text("could not")]),
        ],
        tools=file_tools(),
        mode="bypassPermissions",
    )
    h.run("read a")
    assert "files and cells are read again before the agent edits them" in rewind_to(h, 1, keep_changes=True)
    h.run("edit a")
    [result] = tool_results(h.server.requests[-1])
    assert result_text(result).startswith("NOT_READ: 'a.txt' has not been read in this conversation")
    assert (tmp_path / "a.txt").read_text() == "one\n"


def test_a_rewind_puts_the_todo_list_back_as_the_run_found_it(harness: HarnessFactory) -> None:
    from jupyter_agent.builtin_tools.workflow import TodoWrite, todo_list

    def todos(*items: tuple[str, str]) -> ToolUse:
        listed = [{"content": c, "status": s, "activeForm": f"doing {c}"} for c, s in items]
        return ToolUse(name="TodoWrite", input={"todos": listed})

    h = harness(
        [
            Turn(blocks=[todos(("load", "pending"), ("plot", "pending"))]),
            Turn(blocks=[Text("planned")]),
            Turn(blocks=[todos(("load", "completed"), ("plot", "in_progress"))]),
            Turn(blocks=[Text("loaded")]),
        ],
        tools=[TodoWrite()],
    )
    h.run("plan it")
    planned = todo_list(h.session.ctx).items
    h.run("load it")
    assert [t.status for t in todo_list(h.session.ctx).items] == ["completed", "in_progress"]
    said = rewind_to(h, 2)
    assert "the todo list is back as run 2 found it (2 item(s))" in said
    assert todo_list(h.session.ctx).items == planned
    said = rewind_to(h, 1)
    assert todo_list(h.session.ctx).items == ()
    assert "the todo list is back as run 1 found it (0 item(s))" in said
