"""An Anthropic-compatible endpoint (local model server, proxy) that rejects prompt caching or thinking: the
run goes on without the feature, with one notice, and later requests never send it again. The scripted
server plays such an endpoint (`rejects`)."""

from __future__ import annotations

import json

from agent_testkit import Harness, HarnessFactory

from jupyter_agent.agent import Notice
from jupyter_agent.testing import Text, Turn


def rejected(h: Harness) -> list[int]:
    """Statuses are not recorded; a rejected messages request is the one without a script index."""
    return [
        i for i, r in enumerate(h.server.recorded) if r.path.startswith("/v1/messages") and r.index is None
    ]


def test_an_endpoint_without_prompt_caching_gets_one_notice_and_no_cache_control_after_that(
    harness: HarnessFactory,
) -> None:
    h = harness(
        [Turn(blocks=[Text("first")]), Turn(blocks=[Text("second")])],
        server_options={"rejects": frozenset({"cache_control"})},
    )
    finished = h.run("hello")
    assert finished.reason == "end_turn"
    h.run("again")
    assert len(rejected(h)) == 1
    for body in h.server.requests:
        assert "cache_control" not in json.dumps(body)
    notices = [n.message for n in h.of(Notice) if "does not accept" in n.message]
    assert notices == [
        "this endpoint does not accept prompt caching (cache_control); continuing without it for this session"
    ]


def test_an_endpoint_without_thinking_answers_without_it(harness: HarnessFactory) -> None:
    h = harness(
        [Turn(blocks=[Text("no thinking here")])],
        server_options={"rejects": frozenset({"thinking"})},
        thinking=2048,
        max_tokens=8000,
    )
    finished = h.run("think about it")
    assert finished.reason == "end_turn"
    assert "thinking" not in h.server.requests[0]
    assert [n.message for n in h.of(Notice) if "does not accept" in n.message] == [
        "this endpoint does not accept extended thinking; continuing without it for this session"
    ]


def test_a_400_about_something_else_still_fails_the_run_with_its_message(harness: HarnessFactory) -> None:
    from jupyter_agent.testing import Fault

    h = harness(
        [
            Turn(
                fault=Fault(
                    kind="http_error", error_type="invalid_request_error", message="messages: too many"
                )
            )
        ]
    )
    finished = h.run("hello")
    assert finished.reason == "error"
    assert not [n for n in h.of(Notice) if "does not accept" in n.message]


def test_a_model_the_price_table_does_not_know_finishes_unpriced_with_a_note(harness: HarnessFactory) -> None:
    from jupyter_agent.agent import RunFinished

    h = harness([Turn(blocks=[Text("hi")])], model="qwen3-coder")
    finished = h.run("hello")
    assert isinstance(finished, RunFinished) and not finished.priced
    assert "no price is known for the model 'qwen3-coder'; cost n/a (tokens are still counted)" in [
        n.message for n in h.of(Notice)
    ]
