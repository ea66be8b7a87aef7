"""A tool call's card while the model writes it: opened at the block's start, grown with the streamed field
(read by a tolerant partial-JSON reader), throttled, and closed as "not run" when the stream stops first."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_testkit import HarnessFactory
from anthropic.types import (
    InputJSONDelta,
    RawContentBlockDeltaEvent,
    RawContentBlockStartEvent,
    RawContentBlockStopEvent,
    ToolUseBlock,
)

from jupyter_agent.agent import ToolFinished, ToolStarted
from jupyter_agent.agent.events import ToolWriting
from jupyter_agent.agent.partial_json import partial_string
from jupyter_agent.agent.stream import TurnAssembler
from jupyter_agent.agent.tool_writing import CUT_TEXT, WRITING_INTERVAL, Writing
from jupyter_agent.testing import Fault, Text, ToolUse, Turn
from jupyter_agent.tools import ToolCall, tool

SOURCE = "".join(f'print("line {i}", "\\u00e9\\t😀 \\\\ end")\n' for i in range(40))
INPUT = {"notebook_path": "a.ipynb", "opts": {"a": [1, "}"], "b": None}, "n": -1.5e3, "new_source": SOURCE}


@pytest.mark.parametrize("key_first", [False, True], ids=["field last", "field first"])
def test_every_prefix_of_the_json_reads_as_a_prefix_of_the_value(key_first: bool) -> None:
    value = {"new_source": SOURCE, **INPUT} if key_first else INPUT
    raw = json.dumps(value)  # ensure_ascii: the emoji is a surrogate pair of escapes, cut at every point
    seen: list[str] = []
    for end in range(len(raw) + 1):
        text = partial_string(raw[:end], "new_source")
        if text is not None:
            assert SOURCE.startswith(text), (end, text[-20:])
            assert not any("\ud800" <= ch <= "\udfff" for ch in text)
            seen.append(text)
    assert seen[-1] == SOURCE
    assert len(set(seen)) > len(SOURCE) // 2  # it grows piece by piece, not all at once at the end


def test_the_reader_says_none_until_the_value_starts_and_for_a_value_not_a_string() -> None:
    assert partial_string('{"notebook_path": "a.ipynb", "new_so', "new_source") is None
    assert partial_string('{"new_source": ', "new_source") is None
    assert partial_string('{"new_source": null}', "new_source") is None
    assert partial_string('["new_source", "x"]', "new_source") is None
    assert partial_string('{"other": {"new_source": "inner"}, "new_source": "outer', "new_source") == "outer"
    assert partial_string('{"new_source": "a\\', "new_source") == "a"  # an escape cut after its backslash
    assert partial_string('{"new_source": "a\\\\u12', "new_source") == "a\\u12"  # an escaped backslash stays
    assert partial_string('{"new_source": "a\\ud800 b"}', "new_source") == "a\ufffd b"  # a lone surrogate


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _events(raw: str, *, piece: int) -> list[Any]:
    start = RawContentBlockStartEvent(
        type="content_block_start",
        index=0,
        content_block=ToolUseBlock(type="tool_use", id="toolu_1", name="NotebookEdit", input={}),
    )
    deltas = [
        RawContentBlockDeltaEvent(
            type="content_block_delta",
            index=0,
            delta=InputJSONDelta(type="input_json_delta", partial_json=raw[i : i + piece]),
        )
        for i in range(0, len(raw), piece)
    ]
    return [start, *deltas, RawContentBlockStopEvent(type="content_block_stop", index=0)]


def test_the_assembler_opens_the_card_at_the_start_and_grows_it_at_most_once_an_interval() -> None:
    clock = _Clock()
    assembler = TurnAssembler(tools=lambda name: ("edit", "new_source"), clock=clock)
    items: list[Any] = []
    for event in _events(json.dumps(INPUT), piece=8):
        clock.now += WRITING_INTERVAL / 4  # four pieces an interval
        items.append(assembler.feed(event))
    opened, *rest = items
    assert opened == ToolWriting(call_id="toolu_1", name="NotebookEdit", kind="edit")
    shown = [item for item in rest if isinstance(item, ToolWriting)]
    assert len(shown) <= len(rest) // 4 + 1  # throttled
    texts = [item.text or "" for item in shown]
    assert texts == sorted(texts, key=len) and all(SOURCE.startswith(t) for t in texts)
    assert len(shown) >= 3 and texts[0] != SOURCE  # partial source, several times, before the block ends
    [call] = [item for item in items if isinstance(item, ToolCall)]
    assert items[-1] is call and call.input == INPUT  # the call itself only at the block's end
    assert not any(isinstance(item, ToolCall) for item in items[:-1])
    assert assembler.cut_calls() == []  # complete: nothing to close


def test_a_tool_without_a_streamed_field_opens_its_card_and_shows_nothing_more() -> None:
    assembler = TurnAssembler(tools=lambda name: ("read", None))
    items = [assembler.feed(event) for event in _events(json.dumps(INPUT), piece=8)]
    assert [type(item) for item in items if item is not None] == [ToolWriting, ToolCall]


def test_a_call_cut_before_its_end_is_closed_once_as_not_run() -> None:
    assembler = TurnAssembler(tools=lambda name: ("edit", "new_source"))
    for event in _events(json.dumps(INPUT), piece=8)[:20]:
        assembler.feed(event)
    [cut] = assembler.cut_calls()
    assert (cut.call_id, cut.kind, cut.result.error_code) == ("toolu_1", "edit", "INTERRUPTED")
    assert cut.result.content.endswith(CUT_TEXT)
    assert assembler.cut_calls() == [] and assembler.calls == []


ran: list[str] = []


@tool()
def save(path: str, text: str) -> str:
    """Save text to a path."""
    ran.append(text)
    return "saved"


def test_a_stream_cut_inside_a_call_leaves_its_card_saying_so_and_the_call_never_runs(
    harness: HarnessFactory,
) -> None:
    ran.clear()
    call = ToolUse(name="save", input={"path": "x.txt", "text": "y" * 400})
    cut = Turn(blocks=[Text("Saving."), call], fault=Fault.cut_stream(after_events=12))
    h = harness([cut, Turn(blocks=[Text("retried")])], tools=[save])
    assert h.run("save it").reason == "end_turn"
    [writing] = h.of(ToolWriting)
    [closed] = h.of(ToolFinished)
    assert closed.call_id == writing.call_id and closed.result.error_code == "INTERRUPTED"
    assert CUT_TEXT in closed.result.content
    assert h.of(ToolStarted) == [] and ran == []
    assert h.events.index(writing) < h.events.index(closed)


def test_a_slow_read_of_a_long_input_spaces_the_next_showing_by_ten_times_its_cost() -> None:
    """Reading the input so far grows with it (0.25 s for 2 MB here): a showing waits ten times what the last
    read took, so a long Write does not spend its stream re-reading itself."""
    ticks = iter([0.0, 1.0, 2.0, 11.0, 11.5])  # each read of the input "takes" one second
    writing = Writing(
        call_id="toolu_1", name="Write", kind="edit", field="content", clock=lambda: next(ticks)
    )
    first = writing.grew(['{"file_path": "a.txt", "content": "one\\n'])
    assert first is not None and first.text == "one\n"
    assert writing.grew(['{"file_path": "a.txt", "content": "one\\ntwo\\n']) is None  # 2 s: within 10 × 1 s
    later = writing.grew(['{"file_path": "a.txt", "content": "one\\ntwo\\nthree\\n'])
    assert later is not None and later.text == "one\ntwo\nthree\n"  # at 11 s
