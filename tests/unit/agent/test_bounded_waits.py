"""Every wait bounded and visible: retry-after is counted down and capped, a stalled stream is noticed in
seconds, and errors name their cause and the endpoint. Real SDK over HTTP to the scripted server."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from agent_testkit import HarnessFactory

from jupyter_agent.agent import ErrorEvent, Notice, RetryWait, RunFinished
from jupyter_agent.testing import Fault, Text, Turn

OK = Turn(blocks=[Text("fine")])


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A local port nothing listens on (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def test_a_retry_after_longer_than_the_cap_ends_the_run_at_once_saying_when_to_run_again(
    harness: HarnessFactory,
) -> None:
    h = harness([Turn(fault=Fault.rate_limit(retry_after=90)), OK])
    finished = h.run("hi")
    assert finished.reason == "error" and len(h.server.requests) == 1
    [error] = h.of(ErrorEvent)
    assert error.retryable
    assert error.message.startswith(
        f"the model API at {h.server.url}: rate limited (429): the API asks to wait 90 s before trying again "
        "(retry-after), longer than retry_wait_max (60 s); run the cell again after "
    )
    assert error.message.endswith("or raise `%config AgentMagics.retry_wait_max`.")
    assert h.of(RetryWait) == []


def test_a_retry_after_within_the_cap_is_announced_then_waited(harness: HarnessFactory) -> None:
    h = harness([Turn(fault=Fault.rate_limit(retry_after=0.3)), OK])
    assert h.run("hi").reason == "end_turn"
    assert h.of(RetryWait) == [
        RetryWait(reason="rate limited (429)", seconds=0.3, retry=1, retries=3, asked=True)
    ]
    assert len(h.server.requests) == 2


def test_the_cap_is_a_setting(harness: HarnessFactory) -> None:
    h = harness([Turn(fault=Fault.rate_limit(retry_after=0.5)), OK], retry_wait_max=0.2)
    assert h.run("hi").reason == "error"
    [error] = h.of(ErrorEvent)
    assert (
        "the API asks to wait 0.5 s before trying again (retry-after), longer than retry_wait_max (0.2 s)"
        in (error.message)
    )


def test_errors_without_retry_after_back_off_and_say_so(harness: HarnessFactory) -> None:
    h = harness([Turn(fault=Fault.overloaded()), OK])
    assert h.run("hi").reason == "end_turn"
    [wait] = h.of(RetryWait)
    assert (wait.reason, wait.retry, wait.asked) == ("overloaded (529)", 1, False)
    assert 0.3 <= wait.seconds <= 0.5


def test_a_stream_that_stalls_is_noticed_and_reported_with_its_cause_and_endpoint(
    harness: HarnessFactory,
) -> None:
    stall = Turn(blocks=[Text("this answer stops half-way")], fault=Fault.stall(after_events=4, seconds=60))
    h = harness([stall, stall, OK], stall_timeout=0.5)
    finished = h.run("hi")
    assert finished.reason == "error"
    [notice] = h.of(Notice)
    assert notice.message == (
        "the answer's stream was cut (ReadTimeout: nothing arrived for 0.5 s (model_stall_timeout)); "
        "sending the same request again"
    )
    [error] = h.of(ErrorEvent)
    assert error.message == (
        f"the answer from the model API at {h.server.url} broke off twice in the middle (ReadTimeout: nothing "
        "arrived for 0.5 s (model_stall_timeout)); the conversation is intact, run the cell again to retry"
    )
    assert h.run("again").reason == "end_turn"


def test_a_server_that_never_answers_is_retried_visibly_then_reported(harness: HarnessFactory) -> None:
    silent = Turn(fault=Fault.no_response(seconds=60))
    h = harness([silent, silent, OK], stall_timeout=0.3, max_retries=1)
    assert h.run("hi").reason == "error"
    [wait] = h.of(RetryWait)
    assert wait.reason == "the connection timed out"
    [error] = h.of(ErrorEvent)
    assert error.message.startswith(
        f"the model API at {h.server.url} did not answer: APITimeoutError: nothing "
    )
    assert "after 1 retries" in error.message and "model_stall_timeout" in error.message


def test_an_endpoint_from_anthropic_base_url_is_named_in_errors(
    harness: HarnessFactory, closed_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{closed_port}")
    h = harness([OK], base_url=None, max_retries=1)
    assert h.run("hi").reason == "error"
    [error] = h.of(ErrorEvent)
    assert error.message.startswith(
        f"cannot connect to the model API at http://127.0.0.1:{closed_port} (ConnectError"
    )
    assert "(anthropic)" not in error.message
    assert h.of(RetryWait) == []  # retried quietly: the one error line says it
    [finished] = h.of(RunFinished)
    assert not finished.answered  # so the cell shows no footer of turns and cost
