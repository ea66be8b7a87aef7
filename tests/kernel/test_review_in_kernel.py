"""Review after a run in a real kernel: the footer's Keep / Undo rows and Keep all / Undo all, and
`%agent review` as text where no widget can be clicked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from frontend import AgentKernel, KernelFrontend, Widget, new_id
from nbformat.v4 import new_code_cell, new_notebook
from notebook_page import NotebookPage

from jupyter_agent.notebook.cells import new_cell_json
from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel


def edit_and_create(old: str, new: str, created: str) -> list[Turn]:
    return [
        Turn(blocks=[ToolUse(name="Read", input={"file_path": "a.txt"})]),
        Turn(
            blocks=[ToolUse(name="Edit", input={"file_path": "a.txt", "old_string": old, "new_string": new})]
        ),
        Turn(blocks=[ToolUse(name="Write", input={"file_path": created, "content": "new\n"})]),
        Turn(blocks=[Text("done")]),
    ]


def labels(frontend: KernelFrontend) -> list[str]:
    return [str(w.state.get("value", "")) for w in frontend.widgets.values() if w.model == "HTMLModel"]


def button(frontend: KernelFrontend, tooltip: str) -> Widget:
    found = [
        w for w in frontend.widgets.values() if w.model == "ButtonModel" and w.state.get("tooltip") == tooltip
    ]
    assert found, f"no button {tooltip!r}"
    return found[-1]


def click(frontend: KernelFrontend, tooltip: str) -> None:
    frontend.send_comm(button(frontend, tooltip).comm_id, {"method": "custom", "content": {"event": "click"}})


def latest(frontend: KernelFrontend, row: str) -> str:
    """The newest drawing of a row (each redraw makes new label widgets)."""
    return [label for label in labels(frontend) if row in label][-1]


def shows(frontend: KernelFrontend, text: str) -> bool:
    return any(text in label for label in labels(frontend))


def test_the_footer_keeps_all_then_undoes_all_of_the_next_run_while_the_kernel_is_idle(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    frontend, _ = agent_kernel(
        [*edit_and_create("one", "two", "b.txt"), *edit_and_create("two", "three", "c.txt")]
    )
    first = frontend.run("%%agent --mode acceptEdits\nfirst", timeout=60)
    assert first.reply is not None and first.reply["status"] == "ok"
    assert shows(frontend, "<code>a.txt changed +1 −1</code> · pending")
    assert shows(frontend, "<code>b.txt added +1 −0</code> · pending")
    click(frontend, "Keep every pending change")
    frontend.wait(lambda: shows(frontend, "<code>b.txt added +1 −0</code> · kept"), 30, "the rows kept")
    assert (tmp_path / "a.txt").read_text() == "two\n" and (tmp_path / "b.txt").exists()

    frontend.run("%%agent --mode acceptEdits\nsecond", timeout=60)
    assert (tmp_path / "a.txt").read_text() == "three\n" and (tmp_path / "c.txt").exists()
    click(frontend, "Undo every pending change")
    frontend.wait(lambda: not (tmp_path / "c.txt").exists(), 30, "c.txt removed by Undo all")
    frontend.wait(lambda: shows(frontend, "<code>c.txt added +1 −0</code> · undone"), 30, "the rows redrawn")
    frontend.wait(lambda: shows(frontend, "restored a.txt"), 30, "the outcome under the rows")
    assert (tmp_path / "a.txt").read_text() == "two\n"
    assert (tmp_path / "b.txt").exists()  # run 1's kept change is not touched by run 2's Undo all
    assert latest(frontend, "<code>b.txt added") == "<code>b.txt added +1 −0</code> · kept"
    assert button(frontend, "Undo every pending change").state.get("disabled") is True


def test_undo_of_one_row_refuses_a_file_the_user_changed_since_and_undoes_the_other(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    frontend, _ = agent_kernel(edit_and_create("one", "two", "b.txt"))
    frontend.run("%%agent --mode acceptEdits\nedit", timeout=60)
    (tmp_path / "a.txt").write_text("two\nmine\n")
    click(frontend, "Undo a.txt")
    frontend.wait(lambda: shows(frontend, "skipped a.txt"), 30, "the refusal")
    assert shows(frontend, "it changed after the agent wrote it (1 line(s) differ); undoing would lose those")
    assert (tmp_path / "a.txt").read_text() == "two\nmine\n"
    assert latest(frontend, "<code>a.txt changed") == "<code>a.txt changed +1 −1</code> · pending"
    click(frontend, "Undo b.txt")
    frontend.wait(lambda: not (tmp_path / "b.txt").exists(), 30, "b.txt removed")


def test_agent_review_is_text_headless_and_keeps_or_undoes_cells_and_files(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    nb = new_notebook()
    for i in range(2):
        cell = new_code_cell(f"x = {i}")
        cell.id = f"c{i}"
        nb.cells.append(cell)
    (tmp_path / "other.ipynb").write_text(nbformat.writes(nb))
    script = [
        Turn(blocks=[ToolUse(name="NotebookRead", input={"notebook_path": "other.ipynb"})]),
        Turn(
            blocks=[
                ToolUse(
                    name="NotebookEdit",
                    input={"notebook_path": "other.ipynb", "cell_id": "c0", "new_source": "x = 10"},
                )
            ]
        ),
        Turn(
            blocks=[
                ToolUse(
                    name="NotebookEdit",
                    input={"notebook_path": "other.ipynb", "cell_id": "c1", "new_source": "x = 11"},
                )
            ]
        ),
        Turn(blocks=[ToolUse(name="Write", input={"file_path": "out.txt", "content": "o\n"})]),
        Turn(blocks=[Text("done")]),
    ]
    frontend, _ = agent_kernel(script, headless=True)
    ran = frontend.run("%%agent --mode acceptEdits\nchange things", timeout=90)
    assert "Edited cell 2 ('x = 11') of other.ipynb (+1 −1)  [done" in ran.text(), ran.text()
    listing = frontend.run("%agent review").text()
    assert listing.splitlines()[:3] == [
        "run 1  cell c0       changed  +1 −1    pending",
        "run 1  cell c1       changed  +1 −1    pending",
        "run 1  file out.txt  added    +1 −0    pending",
    ], listing
    assert "keep or undo: %agent review keep|undo all|CELL_ID|PATH" in listing
    assert frontend.run("%agent review keep c0").text().strip() == "kept cell c0"
    assert frontend.run("%agent review undo c1").text().strip() == "restored cell c1 in other.ipynb"
    sources = {c.id: c.source for c in nbformat.read(tmp_path / "other.ipynb", as_version=4).cells}
    assert sources == {"c0": "x = 10", "c1": "x = 1"}
    after = frontend.run("%agent review").text()
    assert (
        "kept" in after.splitlines()[0]
        and "undone" in after.splitlines()[1]
        and "pending" in after.splitlines()[2]
    )
    wrong = frontend.run("%agent review undo nope")
    assert "run 1 changed no 'nope'; it changed: cell c0, cell c1, out.txt" in wrong.text()
    assert (
        frontend.run("%agent review undo all").text().strip() == "removed out.txt (the agent had created it)"
    )
    assert not (tmp_path / "out.txt").exists()


def open_review_comm(frontend: KernelFrontend, path: str = "analysis.ipynb") -> list[dict[str, Any]]:
    """What the labextension does on load, reload and each hello: open the review comm; the kernel's messages."""
    received: list[dict[str, Any]] = []
    comm_id = new_id()
    frontend.comm_handlers[comm_id] = received.append
    content = {"comm_id": comm_id, "target_name": "jupyter_agent.review", "data": {"path": path}}
    frontend.kc.shell_channel.send(frontend.kc.session.msg("comm_open", content))
    received.append({"comm_id": comm_id})
    return received


def reviews(received: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in received if m.get("type") == "review"]


def statics(received: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in received if m.get("type") == "static_view"]


def test_the_page_gets_the_live_marks_acts_on_them_and_gets_them_again_after_a_reload(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    script = [
        Turn(blocks=[ToolUse(name="NotebookRead", input={})]),
        Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "a1", "new_source": "a = 2"})]),
        Turn(
            blocks=[
                ToolUse(
                    name="NotebookEdit",
                    input={
                        "cell_id": "a1",
                        "new_source": "b = 1",
                        "cell_type": "code",
                        "edit_mode": "insert",
                    },
                )
            ]
        ),
        Turn(blocks=[Text("done")]),
    ]
    frontend, _ = agent_kernel(script)
    page = NotebookPage(frontend)
    page.cells.append(new_cell_json("code", "c = 3", cell_id="c3"))
    first = open_review_comm(frontend)  # opened before the run: the marks arrive when it ends
    frontend.run("%%agent --mode acceptEdits\nedit", timeout=60)
    frontend.wait(lambda: bool(reviews(first)), 30, "the marks after the run")
    (marks,) = reviews(first)
    inserted = page.cells[1]["id"]
    assert marks == {
        "type": "review",
        "run_id": 1,
        "cells": [
            {
                "id": "a1",
                "kind": "changed",
                "before": "a = 1",
                "after": "a = 2",
                "cell_type": "code",
                "index": None,
            },
            {
                "id": inserted,
                "kind": "added",
                "before": None,
                "after": "b = 1",
                "cell_type": "code",
                "index": None,
            },
        ],
    }
    comm_id = first[0]["comm_id"]
    keep = {"type": "review_action", "request_id": "r1", "run_id": 1, "action": "keep", "cell_id": inserted}
    frontend.send_comm(comm_id, keep)
    frontend.wait(lambda: any(m.get("request_id") == "r1" for m in first), 30, "the keep result")
    assert [m for m in first if m.get("request_id") == "r1"] == [
        {
            "type": "review_result",
            "request_id": "r1",
            "run_id": 1,
            "cell_id": inserted,
            "outcome": "kept",
            "reason": "",
        }
    ]
    assert [c["id"] for c in reviews(first)[-1]["cells"]] == ["a1"]
    frontend.wait(
        lambda: shows(frontend, "<code>cell 2 (&#x27;b = 1&#x27;) added +1 −0</code> · kept"),
        30,
        "the footer",
    )
    # The footer's static rendering (what the saved notebook shows once the widget is gone) follows the decision:
    # the page is sent it, for the footer's widget model, since the run's cell is done.
    frontend.wait(lambda: bool(statics(first)), 30, "the footer's static rendering")
    kept = statics(first)[-1]
    assert kept["live"] is True and kept["model_id"] in frontend.widgets
    # Cells named by position and first line, as the page shows them.
    assert "cell 2 ('b = 1') added +1 −0 · kept" in kept["data"]["text/plain"]
    assert "cell 1 ('a = 2') changed +1 −1 · not reviewed" in kept["data"]["text/plain"]
    assert "pending" not in kept["data"]["text/plain"] + kept["data"]["text/html"]

    page.cells[0]["source"] = "a = 'mine'"  # the user typed in it since
    undo = {**keep, "request_id": "r2", "action": "undo", "cell_id": "a1"}
    frontend.send_comm(comm_id, undo)
    frontend.wait(lambda: any(m.get("request_id") == "r2" for m in first), 30, "the undo result")
    (refused,) = [m for m in first if m.get("request_id") == "r2"]
    assert refused["outcome"] == "refused"
    assert refused["reason"] == (
        "it changed after the agent edited it; undoing would lose those changes — edit it by hand or ask the agent"
    )
    assert page.cells[0]["source"] == "a = 'mine'"

    reloaded = open_review_comm(
        frontend
    )  # a reload: a new page asks, the kernel answers with what is pending
    # The marks and the static rendering are two messages: wait for both before reading either.
    frontend.wait(lambda: bool(reviews(reloaded)) and bool(statics(reloaded)), 30, "the marks after a reload")
    assert [c["id"] for c in reviews(reloaded)[0]["cells"]] == ["a1"]
    assert [m["data"] for m in statics(reloaded)] == [kept["data"]]  # a reloaded page gets it too
    other = open_review_comm(frontend, "elsewhere/analysis2.ipynb")  # another notebook's page: no marks
    after = open_review_comm(
        frontend
    )  # comm opens are handled in order: once this one is answered, so is that
    frontend.wait(lambda: bool(reviews(after)), 30, "the marks of the page after it")
    assert [m["cells"] for m in reviews(other)] == [[]]


def test_undo_at_the_cell_puts_back_the_outputs_the_cell_had_before_the_agent_edited_and_ran_it(
    agent_kernel: AgentKernel,
) -> None:
    script = [
        Turn(blocks=[ToolUse(name="NotebookRead", input={})]),
        Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "a1", "new_source": "print('agent')"})]),
        Turn(blocks=[ToolUse(name="RunCell", input={"cell_id": "a1"})]),
        Turn(blocks=[Text("done")]),
    ]
    frontend, _ = agent_kernel(script)
    page = NotebookPage(frontend)
    mine = [{"output_type": "stream", "name": "stdout", "text": "mine\n"}]
    page.cells = [
        {**new_cell_json("code", "print('mine')", cell_id="a1"), "outputs": mine, "execution_count": 4}
    ]
    received = open_review_comm(frontend)
    frontend.run("%%agent --mode acceptEdits --allow RunCell\nedit and run", timeout=60)
    assert [o.get("text") for o in page.cells[0]["outputs"]] == [
        "agent\n"
    ]  # the agent's run wrote its output
    assert page.cells[0]["execution_count"] != 4
    frontend.wait(lambda: bool(reviews(received)), 30, "the marks after the run")
    assert [c["id"] for c in reviews(received)[-1]["cells"]] == ["a1"]  # running it adds no second mark
    undo = {"type": "review_action", "request_id": "u1", "run_id": 1, "action": "undo", "cell_id": "a1"}
    frontend.send_comm(received[0]["comm_id"], undo)
    frontend.wait(lambda: any(m.get("request_id") == "u1" for m in received), 30, "the undo result")
    (result,) = [m for m in received if m.get("request_id") == "u1"]
    assert result["outcome"] == "undone", result
    assert page.cells[0]["source"] == "print('mine')"
    assert page.cells[0]["outputs"] == mine and page.cells[0]["execution_count"] == 4


def test_the_review_bar_is_the_first_output_of_its_run_filled_in_when_the_run_ends(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    long_answer = "\n".join(f"line {n} of a long answer" for n in range(200))
    frontend, _ = agent_kernel(
        [*edit_and_create("one", "two", "b.txt")[:-1], Turn(blocks=[Text(long_answer)])]
    )
    run = frontend.run("%%agent --mode acceptEdits\nedit", timeout=60)
    displays = [m for m in run.outputs if m["msg_type"] in ("display_data", "update_display_data")]
    first = displays[0]
    assert first["msg_type"] == "display_data" and first["content"]["data"]["text/plain"] == ""
    slot = first["content"]["transient"]["display_id"]
    filled = [
        m
        for m in displays
        if m["msg_type"] == "update_display_data" and m["content"]["transient"]["display_id"] == slot
    ]
    assert filled, "the review never filled the slot at the top"
    bar = filled[0]["content"]["data"]
    assert "application/vnd.jupyter.widget-view+json" in bar
    assert bar["text/plain"].startswith("Review run 1") and "a.txt changed +1 −1" in bar["text/plain"]
    reviews_shown = [
        m for m in displays if "Review run 1" in str(m["content"].get("data", {}).get("text/plain", ""))
    ]
    assert all(m["content"]["transient"]["display_id"] == slot for m in reviews_shown)  # not again at the end
    assert "line 199 of a long answer" in run.text()  # the answer came after the slot


def test_show_in_notebook_on_a_review_row_sends_the_page_to_that_cell(agent_kernel: AgentKernel) -> None:
    script = [
        Turn(blocks=[ToolUse(name="NotebookRead", input={})]),
        Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "a1", "new_source": "a = 2"})]),
        Turn(blocks=[Text("done")]),
    ]
    frontend, _ = agent_kernel(script)
    NotebookPage(frontend)
    received = open_review_comm(frontend)
    frontend.run("%%agent --mode acceptEdits\nedit", timeout=60)
    click(frontend, "Show cell 1 ('a = 2') changed +1 −1 in the notebook")
    frontend.wait(
        lambda: any(m.get("type") == "reveal_cell" for m in received), 30, "the page told to scroll"
    )
    assert [m for m in received if m.get("type") == "reveal_cell"] == [
        {"type": "reveal_cell", "cell_id": "a1"}
    ]
    other = open_review_comm(frontend, "elsewhere/analysis2.ipynb")  # another notebook's page is not moved
    click(frontend, "Show cell 1 ('a = 2') changed +1 −1 in the notebook")
    frontend.wait(
        lambda: len([m for m in received if m.get("type") == "reveal_cell"]) == 2, 30, "the second reveal"
    )
    assert not [m for m in other if m.get("type") == "reveal_cell"]
