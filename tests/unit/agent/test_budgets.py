"""Budgets: a run's `--max-cost` and the session's `session_budget_usd` stop the agent, say so, keep it valid."""

from __future__ import annotations

from agent_testkit import HarnessFactory, assert_valid_request, tool_results

from jupyter_agent.agent import Notice, RunFinished
from jupyter_agent.testing import Text, ToolUse, Turn, Usage
from jupyter_agent.tools import tool

#: $2.0002 at the default model's prices (Sonnet 5.5: $2 / M input, $10 / M output); a small prompt, so
#: nothing here comes near the context window.
EXPENSIVE = Usage(input_tokens=100, output_tokens=200_000)


@tool(read_only=True)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _call() -> Turn:
    return Turn(blocks=[ToolUse(name="add", input={"a": 1, "b": 1})], usage=EXPENSIVE)


def test_max_cost_stops_the_run_says_so_and_the_next_run_continues_validly(harness: HarnessFactory) -> None:
    h = harness([_call(), Turn(blocks=[Text("2, as I was saying.")])], tools=[add])
    finished = h.run("spend", max_cost=1.0)
    assert (finished.reason, finished.turns, len(h.server.requests)) == ("budget", 1, 1)
    assert any("reaching its budget of $1.0000" in n.message for n in h.of(Notice))
    again = h.run("go on")
    assert again.reason == "end_turn"
    request = h.server.requests[1]
    assert_valid_request(request)
    assert tool_results(request)[0]["content"][0]["text"] == "2"


def test_the_session_budget_stops_runs_across_cells(harness: HarnessFactory) -> None:
    h = harness(
        [Turn(blocks=[Text("one")], usage=EXPENSIVE), _call(), Turn(blocks=[Text("never")])],
        tools=[add],
        session_budget_usd=3.0,
    )
    assert h.run("first").reason == "end_turn"
    second = h.run("second")
    assert (second.reason, second.turns) == ("budget", 1)
    third = h.run("third")
    assert (third.reason, third.turns) == ("budget", 0)
    assert len(h.server.requests) == 2
    stops = [n.message for n in h.of(Notice) if "session_budget_usd" in n.message]
    assert len(stops) == 2 and "this session has cost $4.0004" in stops[0]
    messages = h.session.conversation.messages
    body = {"messages": messages}
    assert_valid_request(body)
    assert h.of(RunFinished)[-1].session_cost_usd == h.session.cost_usd


def test_status_shows_run_and_session_cost_and_the_cache_read_share(harness: HarnessFactory) -> None:
    cached = Usage(input_tokens=100, output_tokens=10, cache_read_input_tokens=300)
    h = harness([Turn(blocks=[Text("a")], usage=cached), Turn(blocks=[Text("b")], usage=cached)])
    h.run("one")
    h.run("two")
    status = h.session.status
    assert status.usage.cache_read_share == 0.75
    assert status.last_run_cost_usd > 0
    assert round(status.cost_usd, 9) == round(2 * status.last_run_cost_usd, 9)
