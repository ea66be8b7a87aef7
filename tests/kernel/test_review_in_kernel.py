"""Review after a run in a real kernel: the footer's Keep / Undo rows and Keep all / Undo all, and
`%agent review` as text where no widget can be clicked."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from frontend import AgentKernel, KernelFrontend, Widget
from nbformat.v4 import new_code_cell, new_notebook

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
    assert shows(frontend, "restored a.txt")
    assert (tmp_path / "a.txt").read_text() == "two\n"
    assert (tmp_path / "b.txt").exists()  # run 1's kept change is not touched by run 2's Undo all
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
    assert shows(frontend, "<code>a.txt changed +1 −1</code> · pending")
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
    assert "replace c1  +1 −1  [done" in ran.text(), ran.text()
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
