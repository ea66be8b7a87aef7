"""A review's widgets live as long as it is the live one: a redraw changes the widgets it has, and when a newer
review takes its place it becomes static HTML that names `%agent review N`, with every model closed — buttons,
boxes, labels and each one's layout and style — and let go."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future

import ipywidgets.widgets.widget as widget_module
import pytest
from IPython.utils.capture import capture_output

from jupyter_agent.ui.review_view import Action, ReviewRow, ReviewWidget
from jupyter_agent.ui.widget_tree import close_tree, tree_of
from jupyter_agent.undo.review import ReviewResult

pytestmark = pytest.mark.usefixtures("shell")  # tests/unit/ui/conftest.py


def alive() -> int:
    return len(widget_module._instances)


class Review:
    """What a review shows and does; `rows` can change between redraws."""

    def __init__(self, rows: list[ReviewRow]) -> None:
        self.rows = rows
        self.calls: list[tuple[Action, str]] = []

    def act(self, action: Action, target: str) -> Future[Sequence[ReviewResult]]:
        self.calls.append((action, target))
        done: Future[Sequence[ReviewResult]] = Future()
        done.set_result([ReviewResult(key=target, outcome="kept", text=f"kept {target}")])
        return done

    def widget(self) -> ReviewWidget:
        return ReviewWidget(
            title="Review run 3",
            rows=lambda: self.rows,
            act=self.act,
            again="%agent review 3",
        )


def row(name: str, state: str = "pending") -> ReviewRow:
    return ReviewRow(target=name, text=f"{name} changed +1 −1", state=state)


def test_a_redraw_that_changes_states_makes_no_new_widget() -> None:
    review = Review([row("a.txt"), row("b.txt")])
    shown = review.widget()
    before = alive()
    review.rows = [row("a.txt", "kept"), row("b.txt")]
    shown.redraw()
    assert alive() == before
    assert "a.txt changed +1 −1</code> · kept" in shown.box.children[1].children[0].value
    assert shown.buttons[("keep", "a.txt")].disabled and not shown.buttons[("keep", "b.txt")].disabled


def test_a_row_that_goes_away_is_closed_with_its_layouts_and_styles() -> None:
    review = Review([row("a.txt"), row("b.txt")])
    shown = review.widget()
    gone = shown.buttons[("keep", "b.txt")]
    parts = tree_of(gone)
    review.rows = [row("a.txt")]
    shown.redraw()
    assert len(parts) == 3  # the button, its layout and its style
    assert all(part.comm is None for part in parts)
    assert ("keep", "b.txt") not in shown.buttons


def test_a_frozen_review_is_static_html_naming_the_command_and_holds_no_widget() -> None:
    review = Review([row("a.txt"), row("b.txt", "undone")])
    before = alive()
    shown = review.widget()
    with capture_output():
        shown.show()
    made = tree_of(shown.box)
    assert len(made) > 20 and alive() - before == len(made)
    with capture_output() as frozen:
        shown.freeze()
    [update] = frozen.outputs
    assert update.update and update.transient["display_id"] == shown.display_id
    html = update.data["text/html"]
    assert "<code>%agent review 3</code> shows Keep / Undo again" in html
    assert (
        "a.txt changed +1 −1</code> · not reviewed" in html and "b.txt changed +1 −1</code> · undone" in html
    )
    assert "application/vnd.jupyter.widget-view+json" not in update.data
    assert update.data["text/plain"].startswith("Review run 3\na.txt changed +1 −1 · not reviewed")
    assert all(part.comm is None for part in made)
    assert alive() == before
    assert shown.box is None and shown.buttons == {}
    shown.click("undo", "all")  # a click that was on its way: nothing happens
    assert review.calls == []


def test_closing_a_tree_twice_is_harmless_and_closes_what_a_box_holds() -> None:
    import ipywidgets as w

    button = w.Button(description="Stop")
    box = w.VBox([button, w.HTML("x")])
    close_tree(box)
    close_tree(box)
    assert all(part.comm is None for part in [box, button, button.layout, button.style, box.layout])


def test_the_display_carries_a_static_rendering_that_follows_each_decision_and_never_says_pending() -> None:
    """What nbconvert, GitHub and a page whose kernel restarted show: the rows with what was decided. Each change
    of it is told to `on_static` (the page puts it into the saved notebook); an unchanged redraw tells nothing."""
    review = Review([row("a.txt"), row("b.txt")])
    shown = review.widget()
    told: list[tuple[str, dict[str, str], bool]] = []
    shown.on_static = lambda model_id, bundle, live: told.append((model_id, bundle, live))
    with capture_output() as displayed:
        shown.show()
    [output] = displayed.outputs
    assert output.data["application/vnd.jupyter.widget-view+json"]["model_id"] == shown.model_id
    assert output.data["application/vnd.jupyter-agent.static+json"] == {"model_id": shown.model_id}
    assert "a.txt changed +1 −1</code> · not reviewed" in output.data["text/html"]
    assert (
        output.data["text/plain"]
        == "Review run 3\na.txt changed +1 −1 · not reviewed\nb.txt changed +1 −1 · not reviewed"
    )
    assert "pending" not in output.data["text/html"] + output.data["text/plain"]
    shown.redraw()
    assert told == []
    review.rows = [row("a.txt", "undone"), row("b.txt", "kept")]
    shown.redraw()
    [(model_id, bundle, live)] = told
    assert model_id == shown.model_id and live
    assert bundle["text/plain"] == "Review run 3\na.txt changed +1 −1 · undone\nb.txt changed +1 −1 · kept"
    assert "b.txt changed +1 −1</code> · kept" in bundle["text/html"]
    with capture_output():
        shown.freeze()
    assert told[-1][0] == model_id and told[-1][2] is False
    assert "%agent review 3 shows Keep / Undo again" in told[-1][1]["text/plain"]
