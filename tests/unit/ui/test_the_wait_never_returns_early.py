"""The main thread's wait (`MainLoop`) returns only when the run has ended: not on a failing display, not on a
second Interrupt, not after a grace period; an Interrupt in the middle of the queue drops nothing."""

from __future__ import annotations

import concurrent.futures
import threading
from typing import Any

from jupyter_agent.agent.events import AgentEvent, Notice, TextDelta
from jupyter_agent.ui.channel import CallOnMain, PendingQuestion, UIChannel
from jupyter_agent.ui.mainloop import MainLoop


class Recorder:
    """A presenter that records what it was shown; `fail_on` makes showing that text raise once."""

    def __init__(self, *, fail_on: str = "", interrupt_on: str = "") -> None:
        self.shown: list[AgentEvent] = []
        self.fail_on = fail_on
        self.interrupt_on = interrupt_on

    def on_event(self, event: AgentEvent) -> None:
        if isinstance(event, TextDelta) and event.text == self.fail_on:
            self.fail_on = ""
            raise KeyError("a card that was never made")
        if isinstance(event, TextDelta) and event.text == self.interrupt_on:
            self.interrupt_on = ""
            raise KeyboardInterrupt
        self.shown.append(event)

    def on_question(self, ask: PendingQuestion[Any]) -> None:
        raise RuntimeError("no widgets here")

    def on_tick(self) -> None:
        pass


class Worker:
    def __init__(self, done: concurrent.futures.Future[str], *, finish_after_stops: int) -> None:
        self.stops = 0
        self.done = done
        self.finish_after_stops = finish_after_stops

    def stop_current(self) -> None:
        self.stops += 1
        if self.stops >= self.finish_after_stops:
            self.done.set_result("stopped")


def texts(recorder: Recorder) -> list[str]:
    return [e.text for e in recorder.shown if isinstance(e, TextDelta)]


def test_a_display_that_fails_does_not_end_the_wait_and_the_rest_is_shown() -> None:
    channel = UIChannel()
    done: concurrent.futures.Future[str] = concurrent.futures.Future()
    for text in ("one", "broken", "three"):
        channel.emit(TextDelta(text=text))
    recorder = Recorder(fail_on="broken")
    threading.Timer(0.05, lambda: done.set_result("finished")).start()
    assert (
        MainLoop(channel=channel, presenter=recorder, worker=Worker(done, finish_after_stops=99)).wait(done)
        == "finished"
    )
    assert texts(recorder) == ["one", "three"]


def test_an_interrupt_in_the_middle_of_the_queue_drops_nothing_after_it_and_the_wait_goes_on() -> None:
    channel = UIChannel()
    done: concurrent.futures.Future[str] = concurrent.futures.Future()
    for text in ("one", "interrupted here", "three", "four"):
        channel.emit(TextDelta(text=text))
    recorder = Recorder(interrupt_on="interrupted here")
    worker = Worker(done, finish_after_stops=1)
    loop = MainLoop(channel=channel, presenter=recorder, worker=worker)
    assert loop.wait(done) == "stopped"
    assert loop.interrupted and worker.stops == 1
    assert texts(recorder) == ["one", "three", "four"]


def test_a_question_that_cannot_be_shown_is_answered_with_the_error() -> None:
    channel = UIChannel()
    done: concurrent.futures.Future[str] = concurrent.futures.Future()
    reply: concurrent.futures.Future[Any] = concurrent.futures.Future()
    channel.queue.put(PendingQuestion(request=Notice(level="info", message="?"), reply=reply))  # pyright: ignore[reportArgumentType]
    threading.Timer(0.05, lambda: done.set_result("finished")).start()
    MainLoop(channel=channel, presenter=Recorder(), worker=Worker(done, finish_after_stops=99)).wait(done)
    assert isinstance(reply.exception(timeout=1), RuntimeError)


class Impatient(Recorder):
    """Presses Interrupt at each of its first `times` ticks."""

    def __init__(self, times: int) -> None:
        super().__init__()
        self.times = times

    def on_tick(self) -> None:
        if self.times:
            self.times -= 1
            raise KeyboardInterrupt


def test_further_interrupts_repeat_the_stop_and_the_wait_still_ends_with_the_run() -> None:
    done: concurrent.futures.Future[str] = concurrent.futures.Future()
    worker = Worker(done, finish_after_stops=3)
    loop = MainLoop(channel=UIChannel(), presenter=Impatient(times=3), worker=worker)
    assert loop.wait(done) == "stopped"
    assert done.done() and worker.stops == 3


def test_an_interrupt_in_the_users_code_requests_the_stop_before_the_worker_gets_the_reply() -> None:
    """Otherwise the worker, woken by the reply, goes on to its next model request before the stop arrives."""
    channel = UIChannel()
    done: concurrent.futures.Future[str] = concurrent.futures.Future()
    worker = Worker(done, finish_after_stops=1)
    reply: concurrent.futures.Future[Any] = concurrent.futures.Future()
    stops_when_woken: list[int] = []
    reply.add_done_callback(lambda _: stops_when_woken.append(worker.stops))

    def users_code() -> None:
        raise KeyboardInterrupt

    channel.queue.put(CallOnMain(users_code, reply, None))
    loop = MainLoop(channel=channel, presenter=Recorder(), worker=worker)
    assert loop.wait(done) == "stopped"
    assert loop.interrupted
    assert stops_when_woken == [1]
    assert isinstance(reply.exception(timeout=1), KeyboardInterrupt)
