"""The strict server reports prompt-cache usage the way the API does, so cache behaviour is measurable in tests."""

from __future__ import annotations

from typing import Any

from jupyter_agent.testing import ScriptedUsage, Text, Turn
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
