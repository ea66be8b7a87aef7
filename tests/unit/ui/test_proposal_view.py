"""What a notebook tool could not put into the notebook is shown under its card: a proposal (new source ready
to copy, with its diff) or a cell's outputs. Sources and outputs are untrusted: escaped, images checked."""

from __future__ import annotations

from typing import Any

from jupyter_agent.agent import events as ev
from jupyter_agent.tools import ToolResult
from jupyter_agent.ui.proposal_view import outputs_bundle, proposal_bundle
from jupyter_agent.ui.view import RunView

EVIL = '<img src=x onerror="alert(1)">'


def proposal(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "mode": "replace",
        "notebook": "analysis.ipynb",
        "cell_id": "load",
        "after_id": None,
        "cell_type": "code",
        "new_source": f"df = load()  # {EVIL}",
        "old_source": "df = load",
        "next_input": False,
        "reason": "VS Code holds 'analysis.ipynb' in its editor",
    }
    return {**base, **changes}


def test_a_replace_shows_why_the_diff_and_the_source_to_copy_escaped() -> None:
    bundle = proposal_bundle(proposal(), "--- a\n+++ b\n@@ -1 +1 @@\n-df = load\n+df = load()\n")
    assert bundle["text/plain"].splitlines()[:3] == [
        "Proposed: a new source for cell 'load' of analysis.ipynb — not applied",
        "Why: VS Code holds 'analysis.ipynb' in its editor",
        "Copy it into the cell if you agree.",
    ]
    assert bundle["text/plain"].endswith(f"New source (ready to copy):\ndf = load()  # {EVIL}")
    html = bundle["text/html"]
    assert "jp-agent-proposal" in html and "<img" not in html and "&lt;img src=x onerror=" in html


def test_a_new_cell_offered_as_the_next_input_says_where_it_appears() -> None:
    text = proposal_bundle(proposal(mode="insert", cell_id=None, next_input=True), None)["text/plain"]
    assert text.startswith("Proposed: a new code cell in analysis.ipynb — not applied")
    assert "It appears as a new cell below this one when this cell finishes" in text


def test_cell_outputs_show_text_images_and_errors_but_no_markup_or_bad_images() -> None:
    png = "iVBORw0KGgo="  # base64 of a PNG signature
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": f"x is 42 {EVIL}\n"},
        {"output_type": "display_data", "data": {"image/png": png, "text/plain": "<Figure>"}, "metadata": {}},
        {
            "output_type": "display_data",
            "data": {"image/png": "not base64!", "text/plain": "broken"},
            "metadata": {},
        },
        {"output_type": "error", "ename": "ValueError", "evalue": "no", "traceback": ["ValueError: no"]},
    ]
    bundle = outputs_bundle("calc", outputs, "VS Code holds it")
    assert (
        bundle["text/plain"].splitlines()[0]
        == "Outputs of cell 'calc' (not in the notebook: VS Code holds it)"
    )
    assert "x is 42" in bundle["text/plain"] and "ValueError: no" in bundle["text/plain"]
    html = bundle["text/html"]
    assert html.count("<img") == 1 and f'src="data:image/png;base64,{png}"' in html
    assert 'onerror="' not in html and "&lt;img src=x" in html


class Recorder:
    def __init__(self) -> None:
        self.shown: list[dict[str, str]] = []

    def show(self, bundle: dict[str, str], *, final: bool = False) -> str:
        self.shown.append(bundle)
        return str(len(self.shown))

    def update(self, display_id: str, bundle: dict[str, str], *, final: bool = False) -> None:
        pass

    def stream_text(self, text: str) -> bool:
        return False


def test_the_run_view_shows_a_proposal_under_its_card_once() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(ev.ToolStarted(call_id="t1", name="NotebookEdit", input={}))
    result = ToolResult.ok("Proposed, not applied", data={"proposal": proposal()})
    view.handle(
        ev.ToolFinished(
            call_id="t1",
            name="NotebookEdit",
            title="NotebookEdit",
            kind="edit",
            result=result,
            duration=0.1,
            decision=None,
        )
    )
    shown = [b for b in publisher.shown if "jp-agent-proposal" in b["text/html"]]
    assert len(shown) == 1
