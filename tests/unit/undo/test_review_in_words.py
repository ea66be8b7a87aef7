"""The review names what a run changed as a person reads it: a cell by its position and first line, a variable in
words (`variable df changed`), never a cell id next to a kind like `changed rebound`."""

from __future__ import annotations

from pathlib import Path

from jupyter_agent.base.journal import CellChange, RunJournal
from jupyter_agent.base.kernel_journal import Before, KernelStep, Pin, VariableChange
from jupyter_agent.base.sandbox import Sandbox
from jupyter_agent.undo.net import net_changes
from jupyter_agent.undo.review import FIRST_LINE_CHARS, said


def edited(cell_id: str, before: str, after: str, index: int | None) -> CellChange:
    inverse = {"ops": [{"op": "replace", "id": cell_id, "source": before, "expect": after}], "live": True}
    return CellChange(
        notebook="/nb/analysis.ipynb",
        op="replace",
        cell_id=cell_id,
        inverse=inverse,
        after_source=after,
        tool="NotebookEdit",
        index=index,
    )


def texts(journal: RunJournal, tmp_path: Path) -> list[str]:
    sandbox = Sandbox(roots=(tmp_path,), cwd=tmp_path)
    return [said(change, sandbox) for change in net_changes(journal)]


def test_a_cell_is_named_by_its_position_and_first_line(tmp_path: Path) -> None:
    journal = RunJournal(run_id=1)
    journal.changes.append(edited("ab12cd34", "df = load()", "\n# clean\ndf = df.dropna()", 2))
    long_line = "totals = df.groupby('region').sum().sort_values('sales')"
    journal.changes.append(edited("ef56", "x = 1", long_line, 4))
    assert texts(journal, tmp_path) == [
        "cell 3 ('# clean') changed +3 −1",
        f"cell 5 ('{long_line[: FIRST_LINE_CHARS - 1]}…') changed +1 −1",
    ]


def test_a_cell_whose_position_is_not_known_keeps_its_id(tmp_path: Path) -> None:
    journal = RunJournal(run_id=1)
    journal.changes.append(edited("ab12", "a = 1", "a = 2", None))
    assert texts(journal, tmp_path) == ["cell ab12 ('a = 2') changed +1 −1"]


def test_variables_are_said_in_words(tmp_path: Path) -> None:
    journal = RunJournal(run_id=1)
    step = KernelStep(tool="RunCode", label="RunCode")
    step.changes += [
        VariableChange(
            name="df", kind="changed", in_place=False, before=Before(present=True, value=1), after=Pin(2)
        ),
        VariableChange(
            name="rows",
            kind="changed",
            in_place=True,
            before=Before(present=True, value=[1]),
            after=Pin([1, 2]),
        ),
        VariableChange(
            name="model", kind="added", in_place=False, before=Before(present=False), after=Pin(3)
        ),
    ]
    journal.kernel.append(step)
    assert texts(journal, tmp_path) == [
        "variable df changed",
        "variable rows changed in place",
        "variable model added",
    ]
