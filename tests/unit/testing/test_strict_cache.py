"""The strict server reports prompt-cache usage the way the API does, so cache behaviour is measurable in tests."""

from __future__ import annotations

from typing import Any

from jupyter_agent.testing import ScriptedUsage, Text, Thinking, ToolUse, Turn
from jupyter_agent.testing.strict.cache import PromptCache
from jupyter_agent.testing.strict.models import SERVED_MODELS

MARK = {"type": "ephemeral"}
SYSTEM = [
    {"type": "text", "text": "You are a careful notebook agent. " * 120, "cache_control": MARK}
]  # ~1000 tokens


def user(text: str, *, mark: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": text}
    if mark:
        block["cache_control"] = MARK
    return {"role": "user", "content": [block]}


def usage(message: Any) -> tuple[int, int, int]:
    u = message.usage
    return u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens


def total(api: Any, **params: Any) -> int:
    request = api.request(**params)
    return api.client.messages.count_tokens(
        **{k: v for k, v in request.items() if k != "max_tokens"}
    ).input_tokens


def test_the_first_request_writes_the_prefix_and_the_next_one_reads_it(api: Any) -> None:
    server = api()
    first_messages = [user("what is in data.csv?", mark=True)]
    first = server.create(system=SYSTEM, messages=first_messages)
    fresh, written, read = usage(first)
    assert (
        read == 0 and written > 1000 and fresh == 0
    )  # all of it up to the last breakpoint, which ends the prompt
    history = [
        *first_messages,
        {"role": "assistant", "content": "It holds sales."},
        user("and in June?", mark=True),
    ]
    second = server.create(system=SYSTEM, messages=history)
    fresh, written_now, read = usage(second)
    assert read == written  # the longest earlier prefix up to a breakpoint
    assert written_now > 0 and fresh == 0
    assert sum(usage(second)) == total(server, system=SYSTEM, messages=history)


def test_tokens_after_the_last_breakpoint_are_plain_input(api: Any) -> None:
    server = api()
    messages = [user("a question"), {"role": "assistant", "content": "an answer"}, user("a follow-up")]
    fresh, written, read = usage(server.create(system=SYSTEM, messages=messages))
    assert read == 0 and written > 0 and fresh > 0
    assert fresh + written == total(server, system=SYSTEM, messages=messages)


def test_a_moved_breakpoint_still_reads_the_earlier_prefix(api: Any) -> None:
    server = api()
    history = [user("one", mark=True)]
    server.create(system=SYSTEM, messages=history)
    history = [user("one"), {"role": "assistant", "content": "1"}, user("two", mark=True)]
    _, _, read = usage(server.create(system=SYSTEM, messages=history))
    assert read > 0  # the breakpoint moved to the end; the lookback finds the prefix written at "one"


def lines_after_start(count: int) -> list[dict[str, Any]]:
    """The first message again, an answer, and a user message of `count` blocks with a breakpoint on the last."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": f"line {n}"} for n in range(count)]
    blocks[-1] = {**blocks[-1], "cache_control": MARK}
    return [user("start"), {"role": "assistant", "content": "ok"}, {"role": "user", "content": blocks}]


def test_the_lookback_finds_a_prefix_at_most_20_blocks_back(api: Any) -> None:
    unmarked_system = [{"type": "text", "text": SYSTEM[0]["text"]}]
    for count, found in ((18, True), (19, False)):  # the 20th position back is the last one looked at
        server = api()
        server.create(system=SYSTEM, messages=[user("start", mark=True)])  # writes up to "start"
        _, _, read = usage(server.create(system=unmarked_system, messages=lines_after_start(count)))
        assert (read > 0) is found, f"{count} blocks after the cached prefix"


def test_a_changed_system_prompt_reads_nothing(api: Any) -> None:
    server = api()
    server.create(system=SYSTEM, messages=[user("q", mark=True)])
    changed = [{**SYSTEM[0], "text": SYSTEM[0]["text"] + " The kernel pid is 4242."}]
    assert usage(server.create(system=changed, messages=[user("q", mark=True)]))[2] == 0


def test_the_cache_is_per_model(api: Any) -> None:
    server = api()
    server.create(system=SYSTEM, messages=[user("q", mark=True)])
    assert (
        usage(server.create(model="claude-opus-5-5", system=SYSTEM, messages=[user("q", mark=True)]))[2] == 0
    )


def test_a_prefix_below_the_models_minimum_is_not_cached(api: Any) -> None:
    server = api()
    short = [{"type": "text", "text": "Be brief.", "cache_control": MARK}]
    for _ in range(2):
        fresh, written, read = usage(server.create(system=short))
        assert (written, read) == (0, 0) and fresh > 0


def test_a_one_hour_breakpoint_is_reported_separately(api: Any) -> None:
    server = api()
    system = [{**SYSTEM[0], "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    message = server.create(system=system, messages=[user("q", mark=True)])
    split = message.usage.cache_creation
    assert split.ephemeral_1h_input_tokens > 1000 and split.ephemeral_5m_input_tokens > 0
    assert (
        split.ephemeral_1h_input_tokens + split.ephemeral_5m_input_tokens
        == message.usage.cache_creation_input_tokens
    )


def test_scripted_usage_wins_over_the_computed_figures(api: Any) -> None:
    server = api(
        [Turn(blocks=[Text("ok")], usage=ScriptedUsage(input_tokens=10, cache_read_input_tokens=90))]
    )
    assert usage(server.create(system=SYSTEM)) == (10, 0, 90)


def test_an_entry_expires_after_its_ttl() -> None:
    now = [0.0]
    cache = PromptCache(clock=lambda: now[0])
    row = SERVED_MODELS["claude-sonnet-5-5"]
    body = {"model": row.id, "system": SYSTEM, "messages": [user("q")]}
    assert cache.account(body, row, frozenset()).cache_read_input_tokens == 0
    now[0] = 299.0
    assert cache.account(body, row, frozenset()).cache_read_input_tokens > 0  # and the read refreshes it
    now[0] = 299.0 + 301.0
    assert cache.account(body, row, frozenset()).cache_read_input_tokens == 0


# A conversation as the package's client sends it: `system` and `tools` fixed, breakpoints on the system prompt, the
# last tool and the tail (the last block of the latest user or system message), thinking on (Sonnet 5.5's default).
BINDING = "thinking-binding-controls-2026-08-01"
INLINE = "inline-tools-2026-09-15"
AGENT_SYSTEM = [
    {"type": "text", "text": "You are a notebook agent. " * 600, "cache_control": MARK}
]  # ~3900 tokens
AGENT_TOOLS = [
    {"name": f"Tool{n}", "description": f"Tool number {n}. " * 40, "input_schema": {"type": "object"}}
    for n in range(5)
]
AGENT_TOOLS[-1] = {**AGENT_TOOLS[-1], "cache_control": MARK}


def with_tail_breakpoint(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The request's copy of the stored messages: a breakpoint on the last block of the latest user or system
    message (the stored ones carry none, so the breakpoint moves along)."""
    copy = [dict(m) for m in messages]
    for message in reversed(copy):
        if message["role"] != "assistant":
            blocks = message["content"]
            blocks = [{"type": "text", "text": blocks}] if isinstance(blocks, str) else list(blocks)
            message["content"] = [*blocks[:-1], {**blocks[-1], "cache_control": MARK}]
            break
    return copy


def agent_script() -> list[Turn]:
    turns: list[Turn] = []
    for n in range(5):
        turns.append(
            Turn(blocks=[Thinking(f"plan {n}"), Text(f"Reading {n}."), ToolUse(name="Tool0", input={"n": n})])
        )
        turns.append(Turn(blocks=[Thinking(f"done {n}"), Text(f"Answer {n}.")]))
    return turns


class AgentConversation:
    """Drives `api` the way the client does; `usages` holds (fresh, written, read, total by count_tokens)."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.system: list[dict[str, Any]] = AGENT_SYSTEM
        self.messages: list[dict[str, Any]] = [{"role": "user", "content": "Load data.csv and plot it."}]
        self.usages: list[tuple[int, int, int, int]] = []

    def send(self) -> Any:
        request = {
            "system": self.system,
            "tools": AGENT_TOOLS,
            "messages": with_tail_breakpoint(self.messages),
            "betas": [BINDING, INLINE],
        }
        answer = self.server.create(**request)
        assert answer.input_transformations == []
        counted = self.server.client.beta.messages.count_tokens(
            model=answer.model, **{k: v for k, v in request.items()}
        ).input_tokens
        u = answer.usage
        self.usages.append(
            (u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens, counted)
        )
        self.messages.append({"role": "assistant", "content": [b.model_dump() for b in answer.content]})
        return answer

    def turn(self, n: int, *, tool_change: bool = False) -> None:
        call = self.send().content[-1]
        self.messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call.id, "content": f"rows: {n}"}],
            }
        )
        if tool_change:  # a tool defined between runs, told as a system message after the user turn
            definition = {"name": "Plot", "description": "Plot a frame.", "input_schema": {"type": "object"}}
            self.messages.append(
                {
                    "role": "system",
                    "content": [
                        {
                            "type": "tool_addition",
                            "tool": {"type": "tool_definition", "definition": definition},
                        }
                    ],
                }
            )
        self.send()
        self.messages.append({"role": "user", "content": f"Now question {n + 1}."})


def test_an_append_only_conversation_reads_90_percent_from_cache_from_its_third_request(api: Any) -> None:
    chat = AgentConversation(api(agent_script()))
    for n in range(5):
        chat.turn(n, tool_change=n == 2)
    for number, (fresh, written, read, counted) in enumerate(chat.usages):
        assert fresh + written + read == counted, (
            f"request {number + 1}: the three figures add up to the total"
        )
        if number >= 2:
            assert read / counted >= 0.9, f"request {number + 1} read {read} of {counted} tokens from cache"
    assert chat.usages[0][2] == 0 and len(chat.usages) == 10


def test_a_changed_system_prompt_reads_only_the_tools_from_cache(api: Any) -> None:
    chat = AgentConversation(api(agent_script()))
    chat.turn(0)
    chat.system = [{**AGENT_SYSTEM[0], "text": AGENT_SYSTEM[0]["text"] + "The kernel pid is 4242."}]
    chat.messages = [chat.messages[0]]  # a new conversation: the old thinking would not pass the prefix check
    chat.send()
    fresh, written, read, counted = chat.usages[-1]
    question = [{"role": "user", "content": "x"}]
    tools_tokens = total(chat.server, tools=AGENT_TOOLS, messages=question) - total(
        chat.server, messages=question
    )
    assert read == tools_tokens  # tools come before system in the cache: only they are read
    assert fresh + written + read == counted and read / counted < 0.25


def test_a_breakpoint_inside_an_added_definition_writes_the_prompt_up_to_it(api: Any) -> None:
    definition = {"name": "Plot", "input_schema": {"type": "object"}, "cache_control": MARK}
    change = {"type": "tool_addition", "tool": {"type": "tool_definition", "definition": definition}}
    messages = [user("plot it"), {"role": "system", "content": [change]}]
    fresh, written, read = usage(api().create(system=SYSTEM, messages=messages, betas=[INLINE]))
    assert (fresh, read) == (
        0,
        0,
    ) and written > 1000  # everything up to the definition's breakpoint is written
