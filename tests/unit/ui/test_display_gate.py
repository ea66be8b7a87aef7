"""Masking at one gate: every widget kind the UI builds, with a secret in every text it shows — as built and
assigned afterwards — leaves no piece of it in what reaches the frontend, the saved notebook or the terminal;
and no module but the gate builds a widget or displays anything, so a widget author cannot forget the mask."""

from __future__ import annotations

import ast
import concurrent.futures
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, cast

import pytest
import traitlets
from shown_kit import Shown, assert_no_part_of, watching

import jupyter_agent
from jupyter_agent.builtin_tools.workflow import ChoiceQuestion, PlanApproval, PlanReview, UserQuestions
from jupyter_agent.builtin_tools.workflow.asking import Choice
from jupyter_agent.permissions.policy import Rule
from jupyter_agent.tools.core import Preview
from jupyter_agent.tools.dispatch import ApprovalRequest, Approve
from jupyter_agent.ui.approval import WidgetApproval, ask_on_stdin
from jupyter_agent.ui.at_cell import Outcome
from jupyter_agent.ui.channel import PendingQuestion
from jupyter_agent.ui.choices import WidgetChoices, ask_choices_on_stdin
from jupyter_agent.ui.gate import WIDGET_KINDS, widgets
from jupyter_agent.ui.plan_review import WidgetPlanReview, review_on_stdin
from jupyter_agent.ui.presenter import _StopButton
from jupyter_agent.ui.probe import widget_frontend_answers
from jupyter_agent.ui.publish import TerminalPublisher
from jupyter_agent.ui.review_view import Action, ReviewRow, ReviewWidget
from jupyter_agent.undo.review import ReviewResult

PACKAGE = Path(jupyter_agent.__file__).parent
SECRET = "dpl-Qx7Wm2Kp9Lr4Tz8V"


@pytest.fixture(autouse=True)
def secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", SECRET)


class _AtCell:
    def reveal(self) -> None: ...
    def close(self, outcome: Outcome, text: str) -> None: ...


def _asked(request: Any) -> PendingQuestion[Any]:
    return PendingQuestion(request=request, reply=concurrent.futures.Future())


def approval() -> ApprovalRequest:
    return ApprovalRequest(
        tool_use_id="toolu_1",
        tool="Edit",
        title=f"Edit notes.txt ({SECRET})",
        input={"new_string": SECRET},
        preview=Preview(
            kind="diff", text=f"--- a\n+++ b\n@@ -1 +1 @@\n-x\n+key = {SECRET}\n", note=f"n {SECRET}"
        ),
        reason=f"the mode asks first; {SECRET}",
        suggested_rule=Rule("Edit", f"{SECRET}/**"),
        kind="edit",
    )


def questions() -> UserQuestions:
    def one(n: int, multi: bool) -> ChoiceQuestion:
        options = tuple(Choice(label=f"{SECRET}{n}{i}", description=f"{i} {SECRET}") for i in range(2))
        return ChoiceQuestion(
            question=f"{n}: {SECRET}?", header=SECRET[4:], options=options, multi_select=multi
        )

    return UserQuestions(tool_use_id="toolu_2", title=SECRET, questions=(one(1, True), one(2, False)))


def plan() -> PlanApproval:
    return PlanApproval(tool_use_id="toolu_3", title=SECRET, plan=f"1. export `{SECRET}`\n2. **{SECRET}**")


def _text_fields(kind: type[Any]) -> dict[str, Any]:
    """Every synced trait of `kind` that takes free text, each with the secret in it."""
    fields: dict[str, Any] = {}
    for name, trait in kind.class_traits(sync=True).items():
        if trait.read_only or name.startswith(("_model_", "_view_")):  # the frontend's class names
            continue
        value = (SECRET,) if isinstance(trait, traitlets.Container) else SECRET
        try:
            trait.validate(cast(Any, kind).__new__(kind), value)
        except traitlets.TraitError:
            continue
        fields[name] = value
    return fields


def build_each_kind_by_hand() -> dict[str, set[str]]:
    """Each kind of `WIDGET_KINDS` with the secret in every text field, once as built, once assigned after."""
    w = widgets()
    filled: dict[str, set[str]] = {}
    for name in WIDGET_KINDS:
        kind = getattr(w, name)
        fields = _text_fields(kind)
        filled[name] = set(fields)
        if name == "Link":
            source, target = w.IntText(), w.IntText()
            w.Link((source, "value"), (target, "value"), **fields)
            later = w.Link((source, "value"), (target, "value"))
        else:
            kind(**fields)
            later = kind()
        for trait, value in fields.items():
            setattr(later, trait, value)
    return filled


def build_every_question(shown: Shown) -> None:
    """The approval (an edit, shown at its cells too), the choices, the plan: shown, typed into, answered."""
    card = WidgetApproval(ask=_asked(approval()))
    card.at_cell = _AtCell()
    card.show()
    message = next(x for x in card.widgets if type(x).__name__ == "Text")
    message.value = f"because {SECRET}"  # typed after it was built
    card.answer(Approve(always=True))
    card.settle()

    choices = WidgetChoices(ask=_asked(questions()))
    choices.show()
    for button in choices.widgets:
        if type(button).__name__ == "Button":
            button.click()  # picks a secret label; the last one sends
    choices.settle()

    review = WidgetPlanReview(ask=_asked(plan()))
    review.show()
    review.answer(PlanReview(verdict="keep_planning", message=SECRET))
    review.settle()


def build_the_rest() -> None:
    """The review footer (rows, a refusal under them), the Stop button, the widget frontend's probe."""
    rows = [ReviewRow(target=f"{SECRET}.txt", text=f"{SECRET}.txt changed", state=f"pending {SECRET}")]

    def refuse(action: Action, target: str) -> Future[Sequence[ReviewResult]]:
        raise PermissionError(f"cannot {action} {target}: {SECRET}")

    footer = ReviewWidget(title=f"Review {SECRET}", rows=lambda: rows, act=refuse)
    footer.show()
    footer.click("undo", f"{SECRET}.txt")

    class Worker:
        def stop_current(self) -> None: ...

    _StopButton(Worker()).hide()

    class Pump:
        def pump(self, timeout: float) -> None: ...

    widget_frontend_answers(Pump(), timeout=0.0)  # pyright: ignore[reportArgumentType]


def test_every_widget_kind_with_a_secret_in_every_text_field_shows_none_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with watching(tmp_path, monkeypatch) as shown:
        filled = build_each_kind_by_hand()
        build_every_question(shown)
        build_the_rest()
    assert {"description", "tooltip", "icon"} <= filled["Button"]
    assert {"value", "placeholder", "description"} <= filled["HTML"] & filled["Text"]
    assert {"_dom_classes", "tooltip"} <= filled["VBox"] and "width" in filled["Layout"]
    assert len(shown.widgets) > 60 and len(shown.messages) > 60 and shown.outputs
    made = {type(x).__name__ for x in shown.widgets}
    assert made >= set(WIDGET_KINDS) and {"ButtonStyle", "HTMLStyle", "TextStyle"} <= made  # their own parts
    assert {type(x).__module__ for x in shown.widgets} == {"jupyter_agent.ui.gate"}
    everything = shown.text()
    assert_no_part_of(SECRET, everything)
    assert "[redacted: DEPLOY_TOKEN]" in everything


def test_the_ui_code_builds_every_kind_the_gate_offers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kind in WIDGET_KINDS no widget uses would be a kind the test above builds only by hand."""
    with watching(tmp_path, monkeypatch) as shown:
        build_every_question(shown)
        build_the_rest()
    assert {type(x).__name__ for x in shown.widgets} >= set(WIDGET_KINDS)
    assert_no_part_of(SECRET, shown.text())


def test_what_the_terminal_is_asked_is_masked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("builtins.input", lambda _prompt: "n")
    ask_on_stdin(approval())
    ask_choices_on_stdin(questions(), read=lambda _prompt: "1")
    review_on_stdin(plan(), read=lambda _prompt: "p")
    terminal = TerminalPublisher()
    terminal.stream_text(f"streamed {SECRET[:10]}")
    terminal.stream_text(f"{SECRET[10:]} text\n")  # each chunk holds a run of 10: each is masked
    terminal.show({"text/plain": f"a card {SECRET}"}, final=True)
    shown = capsys.readouterr().out
    assert_no_part_of(SECRET, shown)
    assert shown.count("[redacted: DEPLOY_TOKEN]") >= 10


def test_markdown_cannot_split_a_secret_into_pieces_too_short_to_mask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rendered, `*` makes emphasis: each piece of this token is shorter than 8, and the reader sees it whole."""
    token = "Kp9*Lr4Tz8*Vq2*Wm7Xn*Qa"
    monkeypatch.setenv("PLAN_TOKEN", token)
    with watching(tmp_path, monkeypatch) as shown:
        WidgetPlanReview(ask=_asked(PlanApproval(title="plan", plan=f"use {token} here"))).show()
    everything = shown.text()
    assert_no_part_of(token.replace("*", ""), everything)
    assert "[redacted: PLAN_TOKEN]" in everything


def _imports(path: Path) -> set[str]:
    """The modules `path` imports, and for `from M import a` also `M.a`."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            found |= {module} | {f"{module}.{alias.name}" for alias in node.names}
    return found


def test_only_the_gate_builds_widgets_or_displays() -> None:
    """ipywidgets is imported by the gate alone, and the display calls of `jupyter_api` are used by it alone."""
    display_calls = {f".jupyter_api.{name}" for name in ("display", "update_display", "widget_bundle")}
    builders: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        imports = _imports(path)
        relative = path.relative_to(PACKAGE).as_posix()
        widget_imports = {m for m in imports if m.split(".")[0] == "ipywidgets"}
        shown_imports = {m for m in imports if m.startswith("IPython.display")} | (imports & display_calls)
        if widget_imports or shown_imports:
            builders[relative] = widget_imports | shown_imports
    assert set(builders) == {"ui/gate.py", "ui/jupyter_api.py"}, builders
    assert builders["ui/jupyter_api.py"] == {
        "IPython.display",
        "IPython.display.display",
        "IPython.display.update_display",
    }
