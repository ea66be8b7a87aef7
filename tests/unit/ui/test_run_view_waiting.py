"""Before the first token: the run's output says "thinking…" from the request until the first text or tool block,
then that line goes (the first text takes its place)."""

from __future__ import annotations

from test_run_view import Recorder

from jupyter_agent.agent import events as ev
from jupyter_agent.ui.view import WAITING_TEXT, RunView


def started() -> ev.RunStarted:
    return ev.RunStarted(run_id=1, model="claude-test", mode="default")


def test_thinking_shows_from_the_request_and_the_first_text_takes_its_place() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(started())
    ((waiting, bundle),) = publisher.shown
    assert bundle["text/plain"] == WAITING_TEXT and WAITING_TEXT in bundle["text/html"]
    assert 'role="status"' in bundle["text/html"]  # said to a screen reader too
    usage = ev.Usage(input=10, output=0)
    view.handle(
        ev.UsageUpdate(turn=usage, run=usage, run_cost_usd=0.0, session=usage, session_cost_usd=0.0)
    )  # not an answer yet: still thinking
    assert len(publisher.shown) == 1 and publisher.updates == []
    view.handle(ev.TextDelta(text="Hello"))
    view.handle(ev.TextDone())
    assert len(publisher.shown) == 1  # no second display: the answer is where "thinking…" was
    assert publisher.updates[-1][0] == waiting and publisher.updates[-1][1]["text/plain"] == "Hello"
    assert all(WAITING_TEXT not in b["text/plain"] for _, b in publisher.updates)


def test_a_tool_call_first_takes_the_thinking_line_away() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(started())
    waiting = publisher.shown[0][0]
    view.handle(ev.ToolStarted(call_id="t1", name="Read", input={"file_path": "a.txt"}, kind="read"))
    assert (waiting, {"text/plain": "", "text/html": ""}) in publisher.updates
    assert len(publisher.shown) == 2  # the card is a display of its own


def test_a_run_that_fails_before_any_token_leaves_no_thinking_line() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(started())
    view.handle(ev.ErrorEvent(message="could not connect", retryable=True))
    assert publisher.updates[0] == (publisher.shown[0][0], {"text/plain": "", "text/html": ""})
