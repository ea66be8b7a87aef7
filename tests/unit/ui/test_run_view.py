"""The run view: streamed text coalesced into one display, a card per tool call, a footer."""

from __future__ import annotations

import time

from jupyter_agent.agent import events as ev
from jupyter_agent.base.result import ToolResult
from jupyter_agent.ui.publish import Bundle
from jupyter_agent.ui.view import MIN_UPDATE_INTERVAL, RunView


class Recorder:
    def __init__(self) -> None:
        self.shown: list[tuple[str, Bundle]] = []
        self.updates: list[tuple[str, Bundle]] = []
        self.count = 0

    def show(self, bundle: Bundle, *, final: bool = False) -> str:
        self.count += 1
        display_id = f"d{self.count}"
        self.shown.append((display_id, bundle))
        return display_id

    def update(self, display_id: str, bundle: Bundle, *, final: bool = False) -> None:
        self.updates.append((display_id, bundle))

    def stream_text(self, text: str) -> bool:
        return False


def finished(reason: ev.RunReason = "end_turn") -> ev.RunFinished:
    return ev.RunFinished(
        reason=reason,
        turns=2,
        usage=ev.Usage(input=1200, output=80, cache_read=1000),
        cost_usd=0.0123,
        duration=3.2,
    )


def test_thousands_of_deltas_become_one_display_with_few_updates() -> None:
    """Coalesced: at most one update per interval while deltas stream, plus the final one, however fast or
    slow this machine is (benchmarks/ui_bench.py prints the count for a realistic stream in a kernel)."""
    publisher = Recorder()
    view = RunView(publisher=publisher)
    started = time.monotonic()
    for i in range(5000):
        view.handle(ev.TextDelta(text=f"w{i} "))
    elapsed = time.monotonic() - started
    view.handle(ev.TextDone())
    text_displays = [d for d, b in publisher.shown if "jp-agent-text" in b["text/html"]]
    assert len(text_displays) == 1
    assert len(publisher.updates) <= elapsed / MIN_UPDATE_INTERVAL + 2
    final = publisher.updates[-1][1]["text/plain"]
    assert final.startswith("w0 ") and final.endswith("w4999 ")


def test_every_tool_call_gets_a_card_that_ends_with_its_status() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(ev.TextDelta(text="Let me look."))
    view.handle(ev.ToolStarted(call_id="t1", name="Edit", input={"file_path": "utils.py"}))
    view.handle(ev.ToolRunning(call_id="t1", title="Edit utils.py"))
    diff = "--- a\n+++ b\n@@ -1,2 +1,4 @@\n-x\n+y\n+z\n+w\n keep\n"
    view.handle(
        ev.ToolFinished(
            call_id="t1", name="Edit", title="Edit utils.py", kind="edit",
            result=ToolResult.ok("ok", summary="Edited utils.py (+3 −1)", diff=diff), duration=0.25, decision=None,
        )
    )  # fmt: skip
    view.handle(ev.ToolStarted(call_id="t2", name="Read", input={"file_path": "nope.py"}))
    view.handle(
        ev.ToolFinished(
            call_id="t2", name="Read", title="Read nope.py", kind="read",
            result=ToolResult.error("FILE_NOT_FOUND", "no such file 'nope.py'"), duration=0.01, decision=None,
        )
    )  # fmt: skip
    view.handle(finished())
    last = {display_id: bundle for display_id, bundle in publisher.updates}
    cards = [b for b in last.values() if "jp-agent-card" in b["text/html"]]
    assert cards[0]["text/plain"] == "✏️ Edited utils.py (+3 −1)  [done 0.2s]"
    assert cards[1]["text/plain"] == "🔍 Read nope.py  [FILE_NOT_FOUND 0.0s]\n    no such file 'nope.py'"
    assert '<details class="jp-agent-card" data-status="error" open' in cards[1]["text/html"]
    assert "open" not in cards[0]["text/html"].split(">")[0]
    footer = publisher.shown[-1][1]["text/plain"]
    assert footer == (
        "2 turns · 1,200 in / 80 out tokens · cache 1,000 read / 0 written (45% read)"
        " · $0.0123 (session $0.0000) · 3.2s"
    )


def test_quiet_collapses_intermediate_text_but_not_the_answer() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher, quiet=True)
    view.handle(ev.TextDelta(text="Thinking out loud"))
    view.handle(ev.ToolStarted(call_id="t1", name="Read", input={}))
    view.handle(
        ev.ToolFinished(
            call_id="t1",
            name="Read",
            title="Read a",
            kind="read",
            result=ToolResult.ok("x"),
            duration=0,
            decision=None,
        )
    )
    view.handle(ev.TextDelta(text="Final answer"))
    view.handle(finished())
    last = {display_id: bundle for display_id, bundle in publisher.updates}
    first_text = last["d1"]["text/html"]
    assert first_text.startswith("<details>") and "Thinking out loud" in first_text
    answer = next(b for b in last.values() if b["text/plain"] == "Final answer")
    assert not answer["text/html"].startswith("<details")


def test_errors_and_stops_are_shown() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(ev.ErrorEvent(message="overloaded; try again", retryable=True))
    view.handle(finished("interrupted"))
    texts = [b["text/plain"] for _, b in publisher.shown]
    assert "⛔ overloaded; try again" in texts
    assert texts[-2] == "⏹ Stopped by you before any tool call ran. Ask again to go on."  # then the footer
    assert "stopped" not in texts[-1]


def test_a_card_shows_its_kind_icon_before_the_call_finishes() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(ev.ToolStarted(call_id="t1", name="Edit", input={"file_path": "a.py"}, kind="edit"))
    view.question_asked("t1", "Edit a.py")
    assert publisher.updates[-1][1]["text/plain"] == "✏️ Edit a.py  [waiting for approval]"


def test_a_retry_wait_counts_down_in_the_cell_then_says_it_retried() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(ev.RetryWait(reason="rate limited (429)", seconds=30, retry=1, retries=3, asked=True))
    [(display_id, shown)] = publisher.shown
    assert shown["text/plain"] == (
        "⏳ rate limited (429): the API asked to wait 30 s; retrying in 30 s (retry 1 of 3)"
    )
    view.tick()  # the same second: nothing to redraw
    assert publisher.updates == []
    view.handle(ev.TextDelta(text="back"))
    assert publisher.updates[0] == (
        display_id,
        {
            "text/plain": "⏳ rate limited (429): retried after 30 s (retry 1 of 3)",
            "text/html": publisher.updates[0][1]["text/html"],
        },
    )
    assert "retried after 30 s" in publisher.updates[0][1]["text/html"]


def test_a_running_calls_progress_shows_on_its_card() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(ev.ToolStarted(call_id="t1", name="mcp__idx__build", input={}, kind="other"))
    view.handle(ev.ToolRunning(call_id="t1", title="mcp__idx__build"))
    view.handle(ev.ToolProgress(call_id="t1", done="40/100", message="indexing"))
    assert "[running · 40/100 indexing]" in publisher.updates[-1][1]["text/plain"]
    assert "running · 40/100 indexing" in publisher.updates[-1][1]["text/html"]


def test_an_approval_shown_after_the_call_finished_leaves_the_card_finished() -> None:
    """The click answers the worker at once; the card learns of the answer on the next tick, by which time the
    worker may have run the call and reported it: the card must end "done", not "running"."""
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(ev.ToolStarted(call_id="t1", name="Edit", input={"file_path": "a.py"}, kind="edit"))
    view.question_asked("t1", "Edit a.py")
    view.handle(ev.ToolRunning(call_id="t1", title="Edit a.py"))
    view.handle(
        ev.ToolFinished(
            call_id="t1", name="Edit", title="Edit a.py", kind="edit",
            result=ToolResult.ok("ok", summary="Edited a.py"), duration=0.5, decision=None,
        )
    )  # fmt: skip
    view.question_answered("t1", "running")
    assert publisher.updates[-1][1]["text/plain"] == "✏️ Edited a.py  [done 0.5s]"


def test_an_approval_answered_before_the_worker_moves_on_shows_at_once() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(ev.ToolStarted(call_id="t1", name="Edit", input={"file_path": "a.py"}, kind="edit"))
    view.question_asked("t1", "Edit a.py")
    view.question_answered("t1", "denied")
    assert publisher.updates[-1][1]["text/plain"].endswith("[denied]")
