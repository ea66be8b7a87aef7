"""A notebook call reads as a person names cells — by position and first line, not by id: the approval's
question ("Edit cell 2 ('x = 1') of analysis.ipynb?"), the card while it waits, and the card's headline once done
("Edited cell 2 ('x = 100') of analysis.ipynb (+1 −1)", "Read cell 2 ('x = 1') of analysis.ipynb")."""

from __future__ import annotations

from notebook_testkit import World
from test_notebook_edit_tool import Approver, call, read, world  # noqa: F401 (the world fixture)

from jupyter_agent.builtin_tools.notebook.common import cell_named
from jupyter_agent.ui.approval import question_in_words
from jupyter_agent.ui.cards import ToolCard


def test_a_cell_is_named_by_its_position_and_first_line() -> None:
    assert cell_named(2, "c3", "\n  # clean\ndf = df.dropna()") == "cell 3 ('# clean')"
    assert cell_named(None, "c3", "x = 1") == "cell c3 ('x = 1')"  # the position unknown: its id
    assert cell_named(0, "c1", "") == "cell 1"
    long = cell_named(0, "c1", "y = " + "1" * 80)
    assert long.startswith("cell 1 ('y = 111") and long.endswith("…')") and len(long) < 60


def test_the_approval_and_the_cards_name_the_cell_by_position(world: World) -> None:  # noqa: F811
    read(world)
    assert read(world, "c1").result.summary == "Read cell 2 ('x = 1') of analysis.ipynb"
    approver = Approver()
    done = call(world, "NotebookEdit", {"cell_id": "c1", "new_source": "x = 100\nprint(x)"}, approver)
    [request] = approver.requests
    assert request.preview.subject == "cell 2 ('x = 1') of analysis.ipynb"
    assert question_in_words(request) == "Edit cell 2 ('x = 1') of analysis.ipynb?"

    # the card while it waits and runs: the question's words (the presenter's `question_asked`), not the log line
    asked = question_in_words(request).removesuffix("?")
    card = ToolCard(
        call_id="t1", name="NotebookEdit", input={}, kind="edit", title=request.title, asked=asked
    )
    assert card.headline() == "Edit cell 2 ('x = 1') of analysis.ipynb"  # not "NotebookEdit … replace c1"
    card.result = done.result
    assert card.headline() == "Edited cell 2 ('x = 100') of analysis.ipynb (+1 −1)"
    assert "NotebookEdit" not in card.text() and "c1" not in card.headline()
