"""The card of a call the model is still writing: opened at once, its code view grown by whole lines and
masked, the same display then showing the complete call; a cut one says it did not run."""

from __future__ import annotations

from test_run_view import Recorder

from jupyter_agent import masking
from jupyter_agent.agent import events as ev
from jupyter_agent.agent.tool_writing import CUT_TEXT
from jupyter_agent.base.result import ToolResult
from jupyter_agent.ui.view import RunView

SECRET = "sk-live-7f3a9c2e51b84d06"


def _writing(text: str | None) -> ev.ToolWriting:
    return ev.ToolWriting(call_id="c1", name="NotebookEdit", kind="edit", text=text)


def test_the_card_opens_at_the_start_and_grows_by_whole_lines_in_one_display() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(ev.TextDelta(text="Writing the cell."))
    view.handle(_writing(None))
    [(card_id, opened)] = [(d, b) for d, b in publisher.shown if "jp-agent-card" in b["text/html"]]
    assert 'data-status="writing"' in opened["text/html"] and "writing…" in opened["text/plain"]
    view.handle(_writing("import pandas as pd\ndf = pd.read_"))
    view.handle(_writing("import pandas as pd\ndf = pd.read_csv('a.csv')\nprint(df.sh"))
    grown = [b for d, b in publisher.updates if d == card_id]
    assert "import pandas as pd" in grown[0]["text/html"] and "read_" not in grown[0]["text/html"]
    assert "read_csv(&#x27;a.csv&#x27;)" in grown[-1]["text/html"]
    assert "df.sh" not in grown[-1]["text/html"]  # the line being written waits for its end
    assert "[writing… 2 lines]" in grown[-1]["text/plain"]
    view.handle(_writing("import pandas as pd\ndf = pd.read_csv('a.csv')\nprint(df.sha"))
    assert len([d for d, _ in publisher.updates if d == card_id]) == len(grown)  # no new line: no update
    complete = {"notebook_path": "a.ipynb", "new_source": "import pandas as pd\n"}
    view.handle(ev.ToolStarted(call_id="c1", name="NotebookEdit", input=complete, kind="edit"))
    assert len([d for d, b in publisher.shown if "jp-agent-card" in b["text/html"]]) == 1  # the same card
    last = publisher.updates[-1]
    assert last[0] == card_id and 'data-status="pending"' in last[1]["text/html"]
    assert "a.ipynb" in last[1]["text/html"] and "being written" not in last[1]["text/html"]


def test_a_secret_in_the_code_being_written_is_masked_on_the_card() -> None:
    masking.register("DEMO_TOKEN", SECRET)
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(_writing(None))
    view.handle(_writing(f'token = "{SECRET}"\nnext'))
    shown = publisher.updates[-1][1]
    assert SECRET not in shown["text/html"] and "[redacted: DEMO_TOKEN]" in shown["text/html"]


def test_a_cut_call_leaves_its_card_saying_it_did_not_run() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(_writing(None))
    view.handle(_writing("x = 1\n"))
    view.handle(
        ev.ToolFinished(
            call_id="c1",
            name="NotebookEdit",
            title="NotebookEdit",
            kind="edit",
            result=ToolResult.error("INTERRUPTED", CUT_TEXT),
            duration=None,
            decision=None,
        )
    )
    _, last = publisher.updates[-1]
    assert 'data-status="interrupted"' in last["text/html"] and CUT_TEXT in last["text/html"]
    assert len([b for _, b in publisher.shown if "jp-agent-card" in b["text/html"]]) == 1


def test_todowrite_being_written_opens_no_card() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(ev.ToolWriting(call_id="t1", name="TodoWrite"))
    assert publisher.shown == []
