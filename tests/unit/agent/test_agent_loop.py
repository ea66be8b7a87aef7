"""The loop against the scripted Messages API server, through the real SDK over HTTP."""

from __future__ import annotations

import asyncio
from typing import Any

from agent_testkit import HarnessFactory, assert_valid_request, context_text, result_text, texts, tool_results

from jupyter_agent.agent import (
    ErrorEvent,
    Notice,
    RunStarted,
    TextDelta,
    TextDone,
    ToolFinished,
    ToolRunning,
    ToolStarted,
    UsageUpdate,
)
from jupyter_agent.base.harness_texts import CONTEXT_HEADING
from jupyter_agent.testing import Fault, ScriptedUsage, Text, Thinking, ToolUse, Turn, scripted_model
from jupyter_agent.tools import ApprovalRequest, Approve, FunctionTool, tool


@tool(read_only=True)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _answer(text: str) -> Turn:
    return Turn(blocks=[Text(text)])


def test_a_tool_call_runs_and_its_result_goes_back_to_the_model(harness: HarnessFactory) -> None:
    h = harness(
        [Turn(blocks=[Text("Adding."), ToolUse(name="add", input={"a": 2, "b": 3})]), _answer("It is 5.")],
        tools=[add],
    )
    finished = h.run("what is 2+3?")
    assert (finished.reason, finished.turns) == ("end_turn", 2)
    second = h.server.requests[1]
    assert_valid_request(second)
    [result] = tool_results(second)
    assert result["tool_use_id"] == "toolu_01_0_1"
    assert result_text(result) == "5"
    assert "is_error" not in result
    kinds = [type(e).__name__ for e in h.events if not isinstance(e, UsageUpdate | TextDelta)]
    assert kinds == [
        "RunStarted",
        "TextDone",
        "ToolWriting",  # its card opens as the model starts writing the call
        "ToolStarted",
        "ToolRunning",
        "ToolFinished",
        "TextDone",
        "RunFinished",
    ]
    assert "".join(e.text for e in h.of(TextDelta)) == "Adding.It is 5."


def test_thinking_blocks_go_back_with_their_signature(harness: HarnessFactory) -> None:
    h = harness(
        [Turn(blocks=[Thinking("Need the sum."), ToolUse(name="add", input={"a": 1, "b": 1})]), _answer("2")],
        tools=[add],
    )
    h.run("1+1")
    sent_back = h.server.requests[1]["messages"][1]["content"][0]
    # On Sonnet 5.5 the package asks for display "updates": the note before a tool call comes back as the
    # thinking block's text, with the server's own signature, which the strict server checked when the block came
    # back (a changed block or prefix would have been a 400).
    assert (sent_back["type"], sent_back["thinking"]) == ("thinking", "Need the sum.")
    assert sent_back["signature"] not in ("", "scripted-signature")
    assert sent_back == h.session.conversation.messages[1]["content"][0]


def test_the_conversation_continues_across_runs(harness: HarnessFactory) -> None:
    h = harness([_answer("Hello."), _answer("You said hi before.")])
    h.run("hi")
    h.run("what did I say?")
    second = h.server.requests[1]
    assert_valid_request(second)
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    assert texts(second["messages"][0]) == ["hi"]
    assert second["messages"][1]["content"] == [{"type": "text", "text": "Hello."}]
    # what the first request sent is sent again unchanged (cache breakpoints aside): the conversation appends
    first = h.server.requests[0]["messages"][0]
    assert _without_breakpoints(second["messages"][0]) == _without_breakpoints(first)
    assert h.session.run_count == 2
    assert [j.run_id for j in h.session.journals] == [1, 2]
    assert h.session.journals[1].request == "what did I say?"
    assert [e.run_id for e in h.of(RunStarted)] == [1, 2]


def _without_breakpoints(message: dict[str, Any]) -> dict[str, Any]:
    return {
        **message,
        "content": [{k: v for k, v in b.items() if k != "cache_control"} for b in message["content"]],
    }


def test_reset_starts_a_new_conversation(harness: HarnessFactory) -> None:
    h = harness([_answer("Hello."), _answer("Fresh.")])
    h.run("hi")
    h.session.reset()
    h.run("again")
    [message] = h.server.requests[1]["messages"]
    assert message["role"] == "user" and texts(message) == ["again"]
    assert context_text(h.server.requests[1]).startswith(CONTEXT_HEADING)  # the context is told anew


def test_read_only_calls_of_one_turn_overlap(harness: HarnessFactory) -> None:
    order: list[str] = []
    both_started = asyncio.Event()

    @tool(read_only=True)
    async def probe(name: str) -> str:
        """Record when it starts and ends."""
        order.append(f"start {name}")
        if len(order) == 2:
            both_started.set()
        await asyncio.wait_for(both_started.wait(), 5)  # returns only if the other call started too
        order.append(f"end {name}")
        return name

    calls = [ToolUse(name="probe", input={"name": "a"}), ToolUse(name="probe", input={"name": "b"})]
    h = harness([Turn(blocks=calls), _answer("done")], tools=[probe])
    h.run("probe twice")
    assert order[:2] == ["start a", "start b"]
    assert [result_text(r) for r in tool_results(h.server.requests[1])] == ["a", "b"]


def test_calls_that_change_things_run_one_at_a_time_in_order(harness: HarnessFactory) -> None:
    order: list[str] = []

    @tool
    async def change(name: str) -> str:
        """Record when it starts and ends."""
        order.append(f"start {name}")
        await asyncio.sleep(0)  # a yield: another call could start here if calls overlapped
        order.append(f"end {name}")
        return name

    calls = [ToolUse(name="change", input={"name": "a"}), ToolUse(name="change", input={"name": "b"})]
    h = harness([Turn(blocks=calls), _answer("done")], tools=[change], mode="bypassPermissions")
    h.run("change twice")
    assert order == ["start a", "end a", "start b", "end b"]


def test_an_approved_call_runs_after_the_approval(harness: HarnessFactory) -> None:
    asked: list[ApprovalRequest] = []

    @tool
    def write_note(text: str) -> str:
        """Write a note."""
        return f"wrote {text}"

    async def approve(request: ApprovalRequest) -> Approve:
        asked.append(request)
        return Approve()

    h = harness(
        [Turn(blocks=[ToolUse(name="write_note", input={"text": "x"})]), _answer("ok")], tools=[write_note]
    )
    h.run("note it", approver=approve)
    assert [r.tool for r in asked] == ["write_note"]
    assert result_text(tool_results(h.server.requests[1])[0]) == "wrote x"
    [finished] = h.of(ToolFinished)
    assert finished.decision is not None and finished.title == "write_note"


def test_an_unknown_tool_gets_an_error_result_and_the_model_recovers(harness: HarnessFactory) -> None:
    h = harness(
        [
            Turn(blocks=[ToolUse(name="subtract", input={"a": 1})]),
            Turn(blocks=[ToolUse(name="add", input={"a": 1, "b": 1})]),
            _answer("2"),
        ],
        tools=[add],
    )
    finished = h.run("1+1")
    assert finished.reason == "end_turn"
    [bad] = tool_results(h.server.requests[1])
    assert bad["is_error"] is True
    assert result_text(bad) == "UNKNOWN_TOOL: there is no tool named 'subtract'; available tools: add"
    assert result_text(tool_results(h.server.requests[2])[0]) == "2"


def test_malformed_tool_json_gets_invalid_args_and_the_model_recovers(harness: HarnessFactory) -> None:
    h = harness(
        [
            Turn(blocks=[ToolUse(name="add", raw_input='{"a": 1, "b": tru}')]),
            Turn(blocks=[ToolUse(name="add", input={"a": 1, "b": 1})]),
            _answer("2"),
        ],
        tools=[add],
    )
    finished = h.run("1+1")
    assert finished.reason == "end_turn"
    first = h.server.requests[1]
    assert_valid_request(first)
    assert first["messages"][1]["content"][0]["input"] == {}  # the block stays, with an object input
    [bad] = tool_results(first)
    assert bad["is_error"] is True
    assert result_text(bad) == (
        "INVALID_ARGS: add was called with invalid arguments; fix them and call it again:\n"
        "- /: expected a complete JSON object. Fix: the arguments were not valid JSON "
        '(Expecting value at character 14): {"a": 1, "b": tru}; send them again as one complete JSON object'
    )
    assert result_text(tool_results(h.server.requests[2])[0]) == "2"


def test_a_tool_call_cut_by_max_tokens_is_sent_back_to_retry_smaller(harness: HarnessFactory) -> None:
    h = harness(
        [
            Turn(
                blocks=[Text("Writing."), ToolUse(name="add", raw_input='{"a": 1, "b"')],
                stop_reason="max_tokens",
            ),
            _answer("I will split it."),
        ],
        tools=[add],
        max_tokens=100,
    )
    finished = h.run("big write")
    assert finished.reason == "end_turn"
    [cut] = tool_results(h.server.requests[1])
    assert result_text(cut) == (
        "INVALID_ARGS: add was called with invalid arguments; fix them and call it again:\n"
        "- /: expected a complete JSON object. Fix: your input to add was cut off: the answer reached "
        "max_tokens (100 output tokens) before its JSON was complete. Call add again with a smaller input "
        "(for a large file, write it in parts)"
    )
    assert any("cut by max_tokens" in n.message for n in h.of(Notice))


def test_an_answer_cut_by_max_tokens_ends_the_run_with_a_notice(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("A long")], stop_reason="max_tokens")], max_tokens=5)
    finished = h.run("write a lot")
    assert finished.reason == "end_turn"
    assert any("cut at max_tokens (5" in n.message for n in h.of(Notice))


def test_max_turns_stops_the_run_and_the_next_run_continues(harness: HarnessFactory) -> None:
    loop_forever = [Turn(blocks=[ToolUse(name="add", input={"a": i, "b": 0})]) for i in range(3)]
    h = harness([*loop_forever, _answer("done")], tools=[add])
    finished = h.run("count", config={"max_turns": 2})
    assert (finished.reason, finished.turns) == ("max_turns", 2)
    assert len(h.server.requests) == 2
    h.run("go on")
    third = h.server.requests[2]
    assert_valid_request(third)
    last = third["messages"][-1]["content"]
    assert [b["type"] for b in last] == ["tool_result", "text"]  # the last results wait for the next run
    assert last[-1]["text"] == "go on"


def test_the_budget_stops_the_run(harness: HarnessFactory) -> None:
    expensive = ScriptedUsage(input_tokens=1_000_000, output_tokens=100)  # $2.001 at Sonnet 5.5 prices
    h = harness(
        [Turn(blocks=[ToolUse(name="add", input={"a": 1, "b": 1})], usage=expensive), _answer("never")],
        tools=[add],
        budget_usd=1.0,
    )
    finished = h.run("spend")
    assert (finished.reason, finished.turns) == ("budget", 1)
    assert round(finished.cost_usd, 3) == 2.001
    assert len(h.server.requests) == 1


def test_pause_turn_continues_with_the_paused_answer(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("Searching…")], stop_reason="pause_turn"), _answer("Found it.")])
    finished = h.run("search")
    assert (finished.reason, finished.turns) == ("end_turn", 2)
    second = h.server.requests[1]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant"]
    assert second["messages"][-1]["content"] == [{"type": "text", "text": "Searching…"}]
    h.run("thanks")
    assert h.session.conversation.messages[1]["content"] == [
        {"type": "text", "text": "Searching…"},
        {"type": "text", "text": "Found it."},
    ]


def test_a_refusal_is_reported(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("I can't help")], stop_reason="refusal")])
    finished = h.run("something bad")
    assert finished.reason == "refusal"
    assert any(n.level == "warning" and "refusal" in n.message for n in h.of(Notice))


def test_usage_and_cost_add_up_per_run_and_per_session(harness: HarnessFactory) -> None:
    turn = ScriptedUsage(
        input_tokens=1000, output_tokens=100, cache_read_input_tokens=10_000, cache_creation_input_tokens=0
    )
    h = harness([Turn(blocks=[Text("a")], usage=turn), Turn(blocks=[Text("b")], usage=turn)])
    first = h.run("one")
    second = h.run("two")
    per_turn = (1000 * 2 + 100 * 10 + 10_000 * 0.10) / 1_000_000  # Sonnet 5.5 prices
    assert first.cost_usd == second.cost_usd == per_turn
    assert (first.usage.input, first.usage.output, first.usage.cache_read) == (1000, 100, 10_000)
    last = h.of(UsageUpdate)[-1]
    assert last.session.input == 2000
    assert last.session_cost_usd == h.session.cost_usd == 2 * per_turn


def test_an_unknown_model_costs_nothing_and_says_so(harness: HarnessFactory) -> None:
    # An Anthropic-compatible endpoint's own model name: the server gets a row for it.
    h = harness(
        [_answer("hi")], model="my-proxy-model", server_options={"models": [scripted_model("my-proxy-model")]}
    )
    finished = h.run("hi")
    assert finished.cost_usd == 0
    assert h.server.requests[0]["model"] == "my-proxy-model"
    assert any("no price is known for the model 'my-proxy-model'" in n.message for n in h.of(Notice))


def test_requests_carry_cache_breakpoints_on_tools_system_and_the_tail(harness: HarnessFactory) -> None:
    h = harness(
        [Turn(blocks=[ToolUse(name="add", input={"a": 1, "b": 1})]), _answer("2"), _answer("again")],
        tools=[add, _mul_tool()],
    )
    h.run("1+1")
    h.run("thanks")
    for body in h.server.requests:
        assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
        assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
        assert "cache_control" not in body["tools"][0]
        tail = [m for m in body["messages"] if m["role"] == "user"][-1]["content"][-1]
        assert tail["cache_control"] == {"type": "ephemeral"}
        assert _count_breakpoints(body) == 3
    assert _count_breakpoints({"m": h.session.conversation.messages}) == 0  # never stored


def test_prompt_caching_can_be_turned_off(harness: HarnessFactory) -> None:
    h = harness([_answer("hi")], tools=[add], prompt_caching=False)
    h.run("hi")
    assert _count_breakpoints(h.server.requests[0]) == 0


def test_a_long_tool_result_is_cut_before_the_model_sees_it(harness: HarnessFactory) -> None:
    @tool(read_only=True)
    def dump() -> str:
        """Print a lot."""
        return "x" * 5000

    h = harness(
        [Turn(blocks=[ToolUse(name="dump")]), _answer("ok")], tools=[dump], max_tool_result_chars=1000
    )
    h.run("dump")
    text = result_text(tool_results(h.server.requests[1])[0])
    assert len(text) < 1200
    assert "4000 characters (0 lines) cut: output over 1000 characters" in text


def test_a_model_that_checks_thinking_prefixes_never_gets_older_results_shortened(
    harness: HarnessFactory,
) -> None:
    @tool(read_only=True)
    def page(n: int) -> str:
        """Return a big page."""
        return f"page {n} " + "y" * 4000

    turns = [
        Turn(blocks=[ToolUse(name="page", input={"n": n})], usage=ScriptedUsage(input_tokens=10))
        for n in range(4)
    ]
    h = harness([*turns, _answer("read them")], tools=[page], context_window=40_000)
    h.run("read four pages")
    first = h.server.requests[1]["messages"]
    for later in h.server.requests[2:]:
        assert later["messages"][: len(first) - 1] == first[:-1]  # what was sent is sent again unchanged
    assert not any("shortened" in n.message for n in h.of(Notice))


def test_older_tool_results_are_shortened_near_the_context_window(harness: HarnessFactory) -> None:
    @tool(read_only=True)
    def page(n: int) -> str:
        """Return a big page."""
        return f"page {n} " + "y" * 4000

    turns = [
        Turn(blocks=[ToolUse(name="page", input={"n": n})], usage=ScriptedUsage(input_tokens=10))
        for n in range(4)
    ]
    h = harness([*turns, _answer("read them")], tools=[page], context_window=6000, model="claude-opus-5")
    finished = h.run("read four pages")
    assert finished.reason == "end_turn"
    last = h.server.requests[-1]
    assert_valid_request(last)
    texts = [
        result_text(b)
        for m in last["messages"]
        if m["role"] == "user"
        for b in tool_results({"messages": [m]})
    ]
    assert texts[0].startswith("[older tool result shortened to save context: ")
    assert "run the tool again if you need it. It began: page 0 yyy" in texts[0]
    assert texts[-1].startswith("page 3 ") and len(texts[-1]) > 4000  # the newest result is intact
    assert any("older tool result(s) were shortened" in n.message for n in h.of(Notice))


def test_a_refused_request_is_reported_and_taken_back_so_the_next_run_is_not_refused_too(
    harness: HarnessFactory,
) -> None:
    h = harness(
        [Turn(fault=Fault.error(error_type="invalid_request_error", message="bad thing")), _answer("ok")]
    )
    finished = h.run("first")
    assert finished.reason == "error"
    [error] = h.of(ErrorEvent)
    assert error.retryable is False
    assert error.message.startswith(
        f"the API at {h.server.url} refused the request (400): bad thing (request id req_01scripted"
    )
    assert any("taken back out of the conversation" in n.message for n in h.of(Notice))
    assert h.session.conversation.messages == []
    assert h.run("second").reason == "end_turn"
    retried = h.server.requests[1]
    assert_valid_request(retried)
    assert texts(retried["messages"][0]) == ["second"]


def test_a_refused_request_in_the_middle_of_a_run_keeps_the_answered_turns(harness: HarnessFactory) -> None:
    h = harness(
        [
            Turn(blocks=[ToolUse(name="add", input={"a": 1, "b": 2})]),
            Turn(fault=Fault.error(error_type="invalid_request_error", message="bad result")),
            _answer("ok"),
        ],
        tools=[add],
    )
    assert h.run("add them").reason == "error"
    roles = [m["role"] for m in h.session.conversation.messages]
    assert roles == ["user", "assistant", "user"]
    [result] = [b for b in h.session.conversation.messages[-1]["content"] if b["type"] == "tool_result"]
    assert result["is_error"] is True  # the refused result was taken back; the call is answered "not run"
    h.run("go on")
    assert_valid_request(h.server.requests[2])


def test_every_started_tool_card_is_finished(harness: HarnessFactory) -> None:
    h = harness(
        [Turn(blocks=[ToolUse(name="add", input={"a": 1, "b": 1}), ToolUse(name="nope")]), _answer("ok")],
        tools=[add],
    )
    h.run("go")
    started = {e.call_id for e in h.of(ToolStarted)}
    assert started == {e.call_id for e in h.of(ToolFinished)}
    assert {e.call_id for e in h.of(ToolRunning)} == {"toolu_01_0_0"}  # the unknown tool never ran
    assert h.of(TextDone) == [TextDone()]


# helpers


def _mul_tool() -> FunctionTool:
    def mul(a: int, b: int) -> int:
        """Multiply."""
        return a * b

    return tool(read_only=True)(mul)


def _count_breakpoints(value: Any) -> int:
    if isinstance(value, dict):
        own = 1 if "cache_control" in value else 0
        return own + sum(_count_breakpoints(v) for v in value.values())
    if isinstance(value, list):
        return sum(_count_breakpoints(v) for v in value)
    return 0
