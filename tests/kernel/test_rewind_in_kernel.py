"""`%agent rewind` in a real kernel: the files and the page's cells are back as they were before the run, byte
for byte, what the user changed since is kept (with the reason), and the conversation the model sees next no
longer holds the rewound runs — asserted on the request the scripted server received."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from frontend import AgentKernel
from notebook_page import NotebookPage

from jupyter_agent.notebook.cells import new_cell_json
from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

LOADER = b"def load():\r\n    return range(1, 3)  # caf\xc3\xa9\r\n"  # CRLF and UTF-8: restored exactly


def script() -> list[Turn]:
    return [
        Turn(blocks=[Text("Looked.")]),  # run 1: no changes
        Turn(
            blocks=[ToolUse(name="Read", input={"file_path": "loader.py"})]
        ),  # run 2: a file, a new file, a cell
        Turn(
            blocks=[
                ToolUse(
                    name="Edit",
                    input={
                        "file_path": "loader.py",
                        "old_string": "range(1, 3)",
                        "new_string": "range(1, 4)",
                    },
                )
            ]
        ),
        Turn(blocks=[ToolUse(name="Write", input={"file_path": "notes.md", "content": "March added\n"})]),
        Turn(blocks=[ToolUse(name="NotebookRead", input={})]),
        Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "a1", "new_source": "a = 2"})]),
        Turn(blocks=[Text("Fixed the loader.")]),
        Turn(blocks=[Text("Answered the third.")]),  # run 3, after the rewind (or run 3 before it)
        Turn(blocks=[Text("Answered the fourth.")]),
    ]


def without_cache_marks(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    text = json.dumps(messages).replace(', "cache_control": {"type": "ephemeral"}', "")
    return json.loads(text)


def start(agent_kernel: AgentKernel, tmp_path: Path) -> tuple[Any, Any, NotebookPage]:
    (tmp_path / "loader.py").write_bytes(LOADER)
    frontend, server = agent_kernel(script())
    page = NotebookPage(frontend)
    page.cells = [new_cell_json("code", "a = 1", cell_id="a1")]
    assert "Looked." in frontend.run("%%agent --mode bypassPermissions\nfirst: look", timeout=60).text()
    fixed = frontend.run("%%agent --mode bypassPermissions\nsecond: fix the loader", timeout=90)
    assert "Fixed the loader." in fixed.text()
    assert (tmp_path / "loader.py").read_bytes() != LOADER and (tmp_path / "notes.md").exists()
    assert page.cells[0]["source"] == "a = 2"
    return frontend, server, page


def test_rewind_undoes_the_runs_changes_byte_for_byte_and_cuts_the_conversation_before_it(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, server, page = start(agent_kernel, tmp_path)
    before_run_2 = without_cache_marks(server.requests[1]["messages"][:-1])  # what run 2 was sent before it

    said = frontend.run("%agent rewind", timeout=60).text()

    assert said.startswith("rewound to before run 2: the conversation lost run 2 (")
    assert "restored loader.py" in said and "removed notes.md (the agent had created it)" in said
    assert "restored cell a1 in analysis.ipynb" in said
    assert "not rewound: background jobs, MCP servers' state, and what the kernel journal cannot see" in said
    assert (tmp_path / "loader.py").read_bytes() == LOADER
    assert not (tmp_path / "notes.md").exists()
    assert page.cells[0]["source"] == "a = 1"
    count = len(server.requests)
    frontend.run("%%agent\nthird: something else", timeout=60)
    sent = without_cache_marks(server.requests[count]["messages"])
    assert sent[:-1] == before_run_2  # the conversation as it was before run 2, then the new request
    assert "second: fix the loader" not in json.dumps(sent) and "loader.py" not in json.dumps(sent)
    assert "third: something else" in json.dumps(sent[-1])
    history = frontend.run("%agent history").text()
    assert "run 1: first: look\n    no changes" in history
    assert "run 2: second: fix the loader (rewound)\n    Edit: changed loader.py" in history
    assert "run 3: third: something else\n    no changes" in history  # run ids are never reused
    again = frontend.run("%agent rewind 2").text()
    assert "ALREADY_REWOUND: run 2 was rewound already; runs that can be rewound: 1, 3" in again
    unknown = frontend.run("%agent rewind 9").text()
    assert "RUN_NOT_FOUND: there is no run 9; runs that can be rewound: 1, 3" in unknown


def test_a_file_or_cell_the_user_changed_since_is_kept_with_the_reason(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, _, page = start(agent_kernel, tmp_path)
    (tmp_path / "loader.py").write_bytes(b"# the user's own fix\n")
    page.cells[0]["source"] = "a = 2  # the user's comment"

    said = frontend.run("%agent rewind 2", timeout=60).text()

    assert "skipped loader.py: it changed after the agent wrote it" in said
    assert "skipped cell a1 in analysis.ipynb: it changed after the agent edited it" in said
    assert "removed notes.md (the agent had created it)" in said
    assert (tmp_path / "loader.py").read_bytes() == b"# the user's own fix\n"
    assert page.cells[0]["source"] == "a = 2  # the user's comment"
    assert not (tmp_path / "notes.md").exists()


def test_keep_changes_rewinds_only_the_conversation(agent_kernel: AgentKernel, tmp_path: Path) -> None:
    frontend, server, page = start(agent_kernel, tmp_path)
    edited = (tmp_path / "loader.py").read_bytes()
    before_run_2 = without_cache_marks(server.requests[1]["messages"][:-1])

    said = frontend.run("%agent rewind --keep-changes", timeout=60).text()

    assert "files, cells and variables were left as they are (--keep-changes)" in said
    assert (tmp_path / "loader.py").read_bytes() == edited and (tmp_path / "notes.md").exists()
    assert page.cells[0]["source"] == "a = 2"
    count = len(server.requests)
    frontend.run("%%agent\nthird: something else", timeout=60)
    assert without_cache_marks(server.requests[count]["messages"])[:-1] == before_run_2


def test_rewinding_to_an_earlier_run_takes_every_later_run_with_it(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, server, _ = start(agent_kernel, tmp_path)
    frontend.run("%%agent\nthird: something else", timeout=60)

    said = frontend.run("%agent rewind 1", timeout=60).text()

    assert said.startswith("rewound to before run 1: the conversation lost runs 1, 2, 3 (")
    assert (tmp_path / "loader.py").read_bytes() == LOADER
    count = len(server.requests)
    frontend.run("%%agent\nfourth: from scratch", timeout=60)
    sent = server.requests[count]["messages"]
    assert len(sent) == 1 and "fourth: from scratch" in json.dumps(sent)
    assert "nothing to rewind" not in frontend.run("%agent history").text()


def test_in_another_kernel_a_resumed_run_rewinds_only_its_conversation_and_says_so(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    first, server, _ = start(agent_kernel, tmp_path)
    edited = (tmp_path / "loader.py").read_bytes()
    before_run_2 = without_cache_marks(server.requests[1]["messages"][:-1])
    first.run("%agent reset")  # the session file is complete; this kernel stays, as a user's old tab would
    frontend, other = agent_kernel([Turn(blocks=[Text("Answered the third.")])])
    resumed = frontend.run("%agent resume").text()
    assert "resumed session" in resumed and "2 run(s)" in resumed
    refused = frontend.run("%agent history").text()
    assert "run 2: second: fix the loader\n    changes not known (resumed from a saved session)" in refused

    said = frontend.run("%agent rewind", timeout=60).text()

    assert said.startswith("rewound to before run 2")
    assert (
        "run 2 was resumed from a saved session: its file and cell changes were not saved, so only its "
        "conversation was rewound"
    ) in said
    assert (tmp_path / "loader.py").read_bytes() == edited
    frontend.run("%%agent\nthird: something else", timeout=60)
    assert without_cache_marks(other.requests[0]["messages"])[:-1] == before_run_2
    # The rewind is saved: resuming this session again replays it.
    frontend.run("%agent reset")
    again = frontend.run("%agent resume").text()
    assert "resumed session" in again
    assert "run 2: second: fix the loader (rewound)" in frontend.run("%agent history").text()


def test_after_reset_and_resume_in_the_same_kernel_its_runs_are_listed_once_and_rewind_undoes_their_changes(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, _, page = start(agent_kernel, tmp_path)
    frontend.run("%agent reset")
    assert "resumed session" in frontend.run("%agent resume").text()
    history = frontend.run("%agent history").text()
    assert history.count("run 2: second: fix the loader") == 1 and "changes not known" not in history

    said = frontend.run("%agent rewind", timeout=60).text()

    assert said.startswith("rewound to before run 2")
    assert "restored loader.py" in said and "removed notes.md (the agent had created it)" in said
    assert (tmp_path / "loader.py").read_bytes() == LOADER
    assert not (tmp_path / "notes.md").exists()
    assert page.cells[0]["source"] == "a = 1"


def test_a_run_before_the_last_compaction_cannot_be_rewound_and_the_refusal_says_which_can(
    agent_kernel: AgentKernel,
) -> None:
    frontend, _ = agent_kernel(
        [
            Turn(blocks=[Text("One.")]),
            Turn(blocks=[Text("Two.")]),
            Turn(blocks=[Text("The user asked twice; both answered.")]),  # the summary
            Turn(blocks=[Text("Three.")]),
        ]
    )
    frontend.run("%%agent\nfirst", timeout=60)
    frontend.run("%%agent\nsecond", timeout=60)
    assert "compacted" in frontend.run("%agent compact", timeout=60).text().lower()
    nothing = frontend.run("%agent rewind").text()
    assert "nothing to rewind: no run since the last compaction, reset or resume" in nothing
    frontend.run("%%agent\nthird", timeout=60)

    refused = frontend.run("%agent rewind 2").text()

    assert (
        "REWIND_PAST_COMPACTION: the conversation before run 2 was summarised (compacted), so it cannot be cut "
        "there; rewind to run 3 or later, or %agent reset"
    ) in refused
    assert "rewound to before run 3" in frontend.run("%agent rewind").text()
