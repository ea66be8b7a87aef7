"""The conversation is append-only: `system` and `tools` are fixed for a conversation and every change between runs
is told by appending — so the API's preserved-thinking prefix check (and the prompt cache) holds across a session."""

from __future__ import annotations

import base64
import itertools
import json
import struct
import zlib
from pathlib import Path
from typing import Any

from agent_testkit import (
    Harness,
    HarnessFactory,
    assert_valid_request,
    context_text,
    result_text,
    tool_results,
)

from jupyter_agent.agent import ErrorEvent, Notice
from jupyter_agent.agent.prefix import INLINE_TOOLS_BETA
from jupyter_agent.agent.turn import BINDING_BETA
from jupyter_agent.base.harness_texts import UPDATE_HEADING
from jupyter_agent.permissions.modes import mode_line
from jupyter_agent.testing import Fault, Text, Thinking, ToolUse, Turn
from jupyter_agent.tools import tool

BOUND_ELSEWHERE = (
    "messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. "
    'Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".'
)


@tool(read_only=True)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(read_only=True)
def blank() -> str:
    """Print nothing but blank lines."""
    return "\n  \n\t\n"


def _prefix(body: dict[str, Any]) -> tuple[str, str]:
    """`system` and `tools` as the bytes they are sent as, cache breakpoints aside (moving them is allowed)."""

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items() if k != "cache_control"}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value

    return json.dumps(plain(body["system"])), json.dumps(plain(body.get("tools", [])))


def _betas(h: Harness, index: int) -> set[str]:
    recorded = [r for r in h.server.recorded if r.index is not None][index]
    return {b.strip() for b in recorded.headers.get("anthropic-beta", "").split(",") if b.strip()}


def _sent_again_unchanged(h: Harness) -> None:
    """Every request repeats the one before it (breakpoints aside) and only appends."""
    bodies = h.server.requests
    for before, after in itertools.pairwise(bodies):
        assert _prefix(after) == _prefix(before)
        old = json.loads(_prefix({"system": before["messages"]})[0])
        new = json.loads(_prefix({"system": after["messages"]})[0])
        assert new[: len(old) - 1] == old[:-1], "an earlier message changed"


def test_a_mode_change_between_runs_is_an_update_and_the_prefix_stays(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("one")]), Turn(blocks=[Text("two")])], tools=[add])
    h.run("first")
    h.session.policy.mode = "acceptEdits"  # %agent mode acceptEdits
    h.run("second")
    first, second = h.server.requests
    assert _prefix(first) == _prefix(second)
    assert "acceptEdits" not in second["system"][0]["text"].split("The permission modes")[0]
    update = [b["text"] for b in second["messages"][-1]["content"] if b["text"].startswith(UPDATE_HEADING)]
    assert update == [f"{UPDATE_HEADING}\n- Permission mode: {mode_line('acceptEdits', exit_plan=False)}"]
    _sent_again_unchanged(h)


def test_a_tool_that_appears_later_is_added_inline_and_one_that_goes_is_removed(
    harness: HarnessFactory,
) -> None:
    @tool(read_only=True)
    def late(x: int) -> int:
        """Defined in a later cell."""
        return x

    h = harness(
        [
            Turn(blocks=[Text("one")]),
            Turn(blocks=[ToolUse(name="late", input={"x": 1})]),
            Turn(blocks=[Text("2")]),
        ],
        tools=[add],
    )
    h.run("first")
    h.session.pool.add("user", late)  # a `@jupyter_agent.tool` defined between runs
    h.session.pool.set_source("test", [])  # `add` goes away (an MCP server stopped, a deny rule)
    h.run("second")
    first, second, third = h.server.requests
    assert _prefix(first) == _prefix(second) == _prefix(third)
    [change] = [m for m in second["messages"] if m["role"] == "system"]
    blocks = [{k: v for k, v in b.items() if k != "cache_control"} for b in change["content"]]
    assert blocks == [
        {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "add"}},
        {"type": "tool_addition", "tool": {"type": "tool_definition", "definition": late.to_param()}},
    ]
    assert INLINE_TOOLS_BETA in _betas(h, 1) and INLINE_TOOLS_BETA in _betas(h, 2)
    assert result_text(tool_results(third)[0]) == "1"  # the added tool runs
    assert_valid_request(third)
    _sent_again_unchanged(h)


def test_a_call_to_a_tool_that_was_taken_away_is_refused_with_the_reason(harness: HarnessFactory) -> None:
    h = harness(
        [
            Turn(blocks=[Text("one")]),
            Turn(blocks=[ToolUse(name="add", input={"a": 1, "b": 2})]),
            Turn(blocks=[Text("ok")]),
        ],
        tools=[add],
    )
    h.run("first")
    h.session.pool.denied = ["add"]  # %agent deny add
    h.run("second")
    [result] = tool_results(h.server.requests[2])
    assert result["is_error"] is True
    assert result_text(result).startswith("DENIED: add is denied by the rule 'add'")
    assert [t["name"] for t in h.server.requests[2]["tools"]] == ["add"]  # still declared


def test_a_model_without_tool_changes_gets_the_tool_list_redeclared_and_told(harness: HarnessFactory) -> None:
    @tool(read_only=True)
    def late() -> str:
        """Defined later."""
        return "x"

    h = harness(
        [Turn(blocks=[Text("one")]), Turn(blocks=[Text("two")])], tools=[add], model="claude-haiku-4-5"
    )
    h.run("first")
    h.session.pool.add("user", late)
    h.run("second")
    second = h.server.requests[1]
    assert [t["name"] for t in second["tools"]] == ["add", "late"]
    assert not any(m["role"] == "system" for m in second["messages"])
    assert "- Tools now available: late" in context_text(second)


def test_switching_to_a_model_without_system_messages_is_refused_before_anything_is_sent(
    harness: HarnessFactory,
) -> None:
    h = harness([Turn(blocks=[Text("one")]), Turn(blocks=[Text("two")])], tools=[add])
    h.run("first")
    h.session.pool.set_source("test", [])
    h.run("second")  # the removal went as a system message
    sent = len(h.server.requests)
    finished = h.run("third", config={"model": "claude-haiku-4-5"})
    assert finished.reason == "error" and len(h.server.requests) == sent
    [error] = h.of(ErrorEvent)
    assert "which 'claude-haiku-4-5' does not take; start a new conversation" in error.message


def test_a_failed_prefix_check_is_repaired_with_drop_block_once_and_kept_for_the_conversation(
    harness: HarnessFactory,
) -> None:
    h = harness(
        [
            Turn(blocks=[Thinking("plan"), Text("one")]),
            Turn(fault=Fault.error(error_type="invalid_request_error", message=BOUND_ELSEWHERE)),
            Turn(blocks=[Text("two")]),
            Turn(blocks=[Text("three")]),
        ]
    )
    h.run("first")
    assert h.run("second").reason == "end_turn"  # repaired within the run
    h.run("third")
    refused, repaired, later = h.server.requests[1:]
    assert "block_binding" not in json.dumps(refused.get("thinking"))
    binding = {"prefix_mismatch_behavior": "drop_block"}
    assert repaired["thinking"]["block_binding"] == binding and later["thinking"]["block_binding"] == binding
    assert BINDING_BETA in _betas(h, 2) and BINDING_BETA in _betas(h, 3)
    assert repaired["messages"] == refused["messages"]  # nothing was rewritten to get past it
    notices = [n.message for n in h.of(Notice) if "refused the model's reasoning" in n.message]
    assert len(notices) == 1 and "bound to a different conversation" in notices[0]
    assert "thinking" not in h.session.client.unsupported  # never read as "thinking is not supported"
    assert h.session.status.binding == "drop_block"


def test_a_tool_that_prints_only_whitespace_is_sent_as_a_result_that_says_so(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[ToolUse(name="blank", input={})]), Turn(blocks=[Text("ok")])], tools=[blank])
    h.run("go")
    [result] = tool_results(h.server.requests[1])
    assert result_text(result) == "(only whitespace)"
    assert_valid_request(h.server.requests[1])


def _png(width: int, height: int, payload: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"tEXt", payload) + chunk(b"IEND", b"")


def test_an_image_over_the_apis_5_mb_as_sent_is_left_out_with_a_note(harness: HarnessFactory) -> None:
    from jupyter_agent.builtin_tools.files import file_tools

    h = harness(
        [Turn(blocks=[ToolUse(name="Read", input={"file_path": "big.png"})]), Turn(blocks=[Text("ok")])],
        tools=file_tools(),
    )
    Path(h.session.ctx.sandbox.cwd / "big.png").write_bytes(_png(100, 100, b"x" * (4_500_000)))
    h.run("look")
    body = json.dumps(h.server.requests[1])
    assert '"type": "image"' not in body
    assert len(body) < 100_000
    [result] = tool_results(h.server.requests[1])
    assert "over the" in result_text(result) and "limit for images" in result_text(result)


def test_a_small_image_goes_as_an_image_block() -> None:
    from jupyter_agent.agent.boundary import valid_for_model

    data = base64.b64encode(_png(10, 10, b"x" * 100)).decode()
    block = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
    assert valid_for_model(block) is block
    big = base64.b64encode(_png(10, 10, b"x" * 4_000_000)).decode()
    refused = valid_for_model(
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": big}}
    )
    assert refused["type"] == "text" and "over the 5 MB the model accepts per image" in refused["text"]


def test_status_says_when_earlier_reasoning_was_refused_and_what_the_api_changed() -> None:
    from jupyter_agent.host.texts import thinking_text

    assert thinking_text(None, ()) == "earlier reasoning sent back as it came"
    dropped: tuple[dict[str, object], ...] = (
        {"type": "thinking_dropped", "path": "messages.1.content.0", "reason": "model_binding_mismatch"},
    )
    text = thinking_text("drop_block", dropped)
    assert text.startswith("prefix_mismatch_behavior drop_block (the API refused earlier reasoning once")
    assert text.endswith("thinking_dropped messages.1.content.0 (model_binding_mismatch)")
