"""Budgets: a run's `--max-cost` and the session's `session_budget_usd` stop the agent, say so, keep it valid."""

from __future__ import annotations

from typing import Any

import pytest
from agent_testkit import HarnessFactory, assert_valid_request, tool_results

from jupyter_agent.agent import Notice, RunFinished
from jupyter_agent.builtin_tools.workflow import workflow_tools
from jupyter_agent.testing import ScriptedUsage, Text, ToolUse, Turn, scripted_model
from jupyter_agent.tools import tool

#: $2.0002 at the default model's prices (Sonnet 5.5: $2 / M input, $10 / M output); a small prompt, so
#: nothing here comes near the context window.
EXPENSIVE = ScriptedUsage(input_tokens=100, output_tokens=200_000)


@tool(read_only=True)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _call() -> Turn:
    return Turn(blocks=[ToolUse(name="add", input={"a": 1, "b": 1})], usage=EXPENSIVE)


def test_max_cost_stops_the_run_says_so_and_the_next_run_continues_validly(harness: HarnessFactory) -> None:
    h = harness([_call(), Turn(blocks=[Text("2, as I was saying.")])], tools=[add])
    finished = h.run("spend", config={"budget_usd": 1.0})
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
    cached = ScriptedUsage(input_tokens=100, output_tokens=10, cache_read_input_tokens=300)
    h = harness([Turn(blocks=[Text("a")], usage=cached), Turn(blocks=[Text("b")], usage=cached)])
    h.run("one")
    h.run("two")
    status = h.session.status
    assert status.usage.cache_read_share == 0.75
    assert status.last_run_cost_usd > 0
    assert round(status.cost_usd, 9) == round(2 * status.last_run_cost_usd, 9)


@pytest.mark.parametrize(
    ("cap", "named", "fix"),
    [
        (
            {"budget_usd": 0.000001},
            "this run's budget of $0.000001 (--max-cost or budget_usd)",
            "budget_usd = None",
        ),
        ({"session_budget_usd": 0.01}, "session_budget_usd ($0.01)", "session_budget_usd = None"),
    ],
)
def test_a_capped_run_of_a_model_without_a_price_sends_nothing_and_says_why(
    harness: HarnessFactory, cap: dict[str, float], named: str, fix: str
) -> None:
    h = harness([Turn(blocks=[Text("never")], usage=EXPENSIVE)] * 6, model="qwen3-coder", **cap)
    finished = h.run("spend")
    assert (finished.reason, finished.turns, len(h.server.requests)) == ("budget", 0, 0)
    (stop,) = [n for n in h.of(Notice) if n.level == "warning"]
    assert stop.message.startswith("BUDGET_UNPRICED: no price is known for the model 'qwen3-coder', so ")
    assert named in stop.message and fix in stop.message and "--model claude-sonnet-5-5" in stop.message
    assert not [n for n in h.of(Notice) if "cost n/a" in n.message]


def test_without_a_cap_a_model_without_a_price_runs_and_says_cost_n_a(harness: HarnessFactory) -> None:
    # A local model behind an Anthropic-compatible endpoint: the server gets a row for its name.
    h = harness(
        [Turn(blocks=[Text("fine")], usage=EXPENSIVE)],
        model="qwen3-coder",
        server_options={"models": [scripted_model("qwen3-coder", like="claude-haiku-4-5")]},
    )
    finished = h.run("go")
    assert (finished.reason, finished.turns, finished.priced) == ("end_turn", 1, False)
    assert any("cost n/a" in n.message for n in h.of(Notice))


def test_the_models_the_old_tables_left_unpriced_are_priced_so_their_cap_holds(
    harness: HarnessFactory,
) -> None:
    h = harness(
        [_call(), Turn(blocks=[Text("never")])], tools=[add], model="claude-fable-5-2", budget_usd=1.0
    )
    finished = h.run("spend")
    assert (finished.reason, finished.turns, len(h.server.requests)) == ("budget", 1, 1)
    assert finished.cost_usd == pytest.approx((100 * 8 + 200_000 * 40) / 1e6)


def _subagent_script(sub_usage: ScriptedUsage, *, first: Turn | None = None) -> Any:
    """The parent starts a Task (after `first`, a run of its own, when given); the sub-agent adds forever."""

    def script(body: dict[str, Any], index: int) -> Turn:
        if body["system"][0]["text"].startswith("You are a sub-agent"):
            return Turn(blocks=[ToolUse(name="add", input={"a": 1, "b": 1})], usage=sub_usage)
        if first is not None and index == 0:
            return first
        if index == (0 if first is None else 1):
            task = {"description": "Add up", "prompt": "Add 1 and 1, again and again."}
            return Turn(blocks=[ToolUse(name="Task", input=task, id="toolu_task")], usage=sub_usage)
        return Turn(blocks=[Text("done")])

    return script


def _subagent_requests(h: Any) -> int:
    return sum(b["system"][0]["text"].startswith("You are a sub-agent") for b in h.server.requests)


def test_a_subagent_stops_at_its_runs_budget_not_at_a_budget_of_its_own(harness: HarnessFactory) -> None:
    """$0.60 a request under a $1 cap: the parent's Task request ($0.60) and one sub-agent request ($1.20)
    reach it; a sub-agent that only counted its own cost would have made two ($1.80)."""
    sixty_cents = ScriptedUsage(input_tokens=0, output_tokens=60_000)  # Sonnet 5.5: $10 / M output
    h = harness(_subagent_script(sixty_cents), tools=[add, *workflow_tools()], budget_usd=1.0)
    finished = h.run("add")
    assert _subagent_requests(h) == 1
    assert finished.reason == "budget"
    assert finished.cost_usd == pytest.approx(1.2)
    assert any(n.message.startswith("Task 'Add up': stopped: this run cost $1.2000") for n in h.of(Notice))


def test_a_subagent_counts_against_the_sessions_budget(harness: HarnessFactory) -> None:
    sixty_cents = ScriptedUsage(input_tokens=0, output_tokens=60_000)
    first = Turn(blocks=[Text("first")], usage=ScriptedUsage(input_tokens=0, output_tokens=150_000))
    h = harness(
        _subagent_script(sixty_cents, first=first), tools=[add, *workflow_tools()], session_budget_usd=2.0
    )
    assert h.run("first").cost_usd == pytest.approx(1.5)
    assert h.run("second").reason == "budget"
    assert _subagent_requests(h) == 0
    assert any("Task 'Add up': stopped: this session has cost $2.1000" in n.message for n in h.of(Notice))
