"""The review footer's buttons with real ipywidgets: a click runs on the kernel's main thread while the rows
may be redrawn on the agent's worker (an action ended); neither may break the other."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future

import pytest

from jupyter_agent.ui.review_view import Action, ReviewRow, ReviewWidget
from jupyter_agent.undo.review import ReviewResult

ROWS = [ReviewRow(target=f"f{i}.txt", text=f"f{i}.txt changed +1 −1", state="pending") for i in range(6)]


class Actions:
    """The `act` a widget is given: records each call; the test settles the futures."""

    def __init__(self) -> None:
        self.calls: list[tuple[Action, str]] = []
        self.futures: list[Future[Sequence[ReviewResult]]] = []

    def __call__(self, action: Action, target: str) -> Future[Sequence[ReviewResult]]:
        self.calls.append((action, target))
        self.futures.append(Future())
        return self.futures[-1]


def footer(act: Actions) -> ReviewWidget:
    return ReviewWidget(title="Review run 1", rows=lambda: ROWS, act=act)


def disabled(widget: ReviewWidget) -> list[bool]:
    return [button.disabled for button in widget.buttons.values()]


def message(widget: ReviewWidget) -> str:
    return str(widget.message.value)


def redraw_on_another_thread(widget: ReviewWidget) -> tuple[threading.Thread, list[BaseException]]:
    """What the worker does when an action ends; the thread, and what the redraw raised there."""
    failed: list[BaseException] = []

    def redraw() -> None:
        try:
            widget.redraw()
        except BaseException as exc:  # pragma: no cover - what the test is there to catch
            failed.append(exc)

    thread = threading.Thread(target=redraw)
    thread.start()
    return thread, failed


@pytest.fixture
def thread_switches_often() -> Iterator[None]:
    """Threads take turns every microsecond instead of every 5 ms, so an unguarded interleaving shows up."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


@pytest.mark.usefixtures("thread_switches_often")
def test_a_click_while_the_worker_redraws_the_rows_is_taken_and_leaves_every_button_disabled() -> None:
    act = Actions()
    widget = footer(act)
    for attempt in range(300):
        worker, redraw_failed = redraw_on_another_thread(widget)
        widget.click("undo", "f1.txt")  # raised "dictionary changed size during iteration" when unguarded
        worker.join()
        assert redraw_failed == []
        assert len(act.calls) == attempt + 1, "the click was lost"
        assert all(disabled(widget)), f"attempt {attempt}: a button is enabled while the action runs"
        act.futures[-1].set_result([ReviewResult(key="f1.txt", outcome="refused", text=f"skipped {attempt}")])
        assert not any(disabled(widget)) and f"skipped {attempt}" in message(widget)


def test_rows_redrawn_while_an_action_runs_keep_their_buttons_disabled_until_it_ends() -> None:
    act = Actions()
    widget = footer(act)
    other = footer(act)  # `%agent review`'s view of the same run: its click also counts
    widget.click("keep", "all")
    widget.redraw()  # what every view gets when any action ends (`ReviewPages.publish`)
    assert all(disabled(widget)) and not any(disabled(other))
    other.click("undo", "f2.txt")
    act.futures[1].set_result([ReviewResult(key="f2.txt", outcome="undone", text="restored f2.txt")])
    assert all(disabled(widget)), "the footer's own action still runs"
    assert not any(disabled(other)) and "restored f2.txt" in message(other)
    act.futures[0].set_result([ReviewResult(key="f0.txt", outcome="kept", text="kept f0.txt")])
    assert not any(disabled(widget)) and "kept f0.txt" in message(widget)


def test_an_action_that_cannot_start_is_said_under_the_rows_and_the_buttons_come_back() -> None:
    def refuse(action: Action, target: str) -> Future[Sequence[ReviewResult]]:
        raise RuntimeError("the agent's worker is shut down")

    widget = ReviewWidget(title="Review run 1", rows=lambda: ROWS, act=refuse)
    widget.click("undo", "all")
    assert "RuntimeError: the agent&#x27;s worker is shut down" in message(widget)
    assert not any(disabled(widget))
