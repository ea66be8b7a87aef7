"""Nothing a tool returns can break the request: texts reach the API as valid UTF-8 and images as images, by
one check at the boundary (`agent/boundary.py`), whatever tool produced them. Through the real SDK over HTTP."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

from agent_testkit import HarnessFactory, assert_valid_request, result_text, tool_results

from jupyter_agent.agent import ErrorEvent
from jupyter_agent.base.result import ImageContent, ToolResult
from jupyter_agent.builtin_tools.catalog import builtin_tools
from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.tools import tool

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"
PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
DONE = Turn(blocks=[Text("done")])


def _utf8_body(body: object) -> bytes:
    """What the API receives must encode as UTF-8 (a lone surrogate cannot)."""
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def test_a_failed_edit_quoting_undecodable_bytes_does_not_poison_the_session(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    # Mostly UTF-8 with one stray Latin-1 byte: kept as UTF-8, the stray byte survives as a lone surrogate,
    # and TEXT_NOT_FOUND quotes the closest line — with that byte in it.
    (tmp_path / "notes.py").write_bytes(
        "# naïve approach\n# caf\xe9 crème\nvalue = 1\n".encode().replace(b"caf\xc3\xa9", b"caf\xe9")
    )
    change = {"old_string": "# cafe creme", "new_string": "# coffee"}
    edit = {"file_path": "notes.py", **change}
    h = harness(
        [
            Turn(blocks=[ToolUse(name="Read", input={"file_path": "notes.py"})]),
            Turn(blocks=[ToolUse(name="Edit", input=edit)]),
            Turn(blocks=[ToolUse(name="MultiEdit", input={"file_path": "notes.py", "edits": [change]})]),
            DONE,
            Turn(blocks=[Text("the next run works")]),
        ],
        tools=builtin_tools(),
        mode="acceptEdits",
    )
    assert h.run("fix the comment").reason == "end_turn"
    assert h.of(ErrorEvent) == []
    for request in h.server.requests[2:4]:
        [result] = tool_results(request)
        assert "TEXT_NOT_FOUND" in result_text(result) and "# caf\ufffd crème" in result_text(result)
    assert h.run("again").reason == "end_turn"
    for request in h.server.requests:
        _utf8_body(request)
        assert_valid_request(request)
    assert (tmp_path / "notes.py").read_bytes().count(b"caf\xe9") == 1  # nothing was written


def test_a_tool_that_returns_lone_surrogates_cannot_break_the_conversation(harness: HarnessFactory) -> None:
    @tool(read_only=True)
    def legacy_log() -> str:
        """Return the log as the old system wrote it."""
        return "caf\udce9 au lait \ud800 end"

    h = harness(
        [Turn(blocks=[ToolUse(name="legacy_log")]), DONE, Turn(blocks=[Text("ok")])], tools=[legacy_log]
    )
    assert h.run("read the log").reason == "end_turn"
    [result] = tool_results(h.server.requests[1])
    assert result_text(result) == "caf\ufffd au lait \ufffd end"
    assert h.run("and again").reason == "end_turn"
    json.dumps(h.session.conversation.messages, ensure_ascii=False).encode("utf-8")  # what is saved encodes


def test_a_lone_surrogate_in_a_tool_input_is_invalid_args_for_that_call_only(harness: HarnessFactory) -> None:
    @tool(read_only=True)
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    h = harness(
        [
            Turn(
                blocks=[
                    ToolUse(name="echo", raw_input='{"text": "bad \\ud800 text"}'),
                    ToolUse(name="echo", input={"text": "fine"}),
                ]
            ),
            DONE,
            Turn(blocks=[Text("later runs work")]),
        ],
        tools=[echo],
    )
    assert h.run("echo").reason == "end_turn"
    bad, good = tool_results(h.server.requests[1])
    assert bad["is_error"] is True
    assert result_text(bad).startswith("INVALID_ARGS: echo was called with invalid arguments")
    assert "the string at /text holds a lone surrogate" in result_text(bad)
    assert result_text(good) == "fine"
    stored = h.session.conversation.messages[1]["content"][0]
    assert stored["type"] == "tool_use" and stored["input"] == {}
    assert h.run("next").reason == "end_turn"
    for request in h.server.requests:
        _utf8_body(request)


def test_images_whose_bytes_are_not_images_become_a_one_line_note(harness: HarnessFactory) -> None:
    @tool(read_only=True)
    def pictures() -> ToolResult:
        """Return the pictures."""
        return ToolResult.ok(
            "three pictures",
            images=(
                ImageContent(media_type="image/png", data=base64.b64encode(b"hello, I am text").decode()),
                ImageContent(media_type="image/jpeg", data=""),
                ImageContent(media_type="image/jpeg", data=base64.b64encode(PIXEL_PNG).decode()),
            ),
        )

    h = harness([Turn(blocks=[ToolUse(name="pictures")]), DONE], tools=[pictures])
    assert h.run("show me").reason == "end_turn"
    [result] = tool_results(h.server.requests[1])
    blocks = result["content"]
    assert blocks[1] == {
        "type": "text",
        "text": "[an image was left out: its 16 bytes are not a PNG, JPEG, GIF or WebP image "
        "(they start b'hello, I')]",
    }
    assert blocks[2] == {"type": "text", "text": "[an image was left out: it is empty (0 bytes)]"}
    assert blocks[3]["type"] == "image" and blocks[3]["source"]["media_type"] == "image/png"  # relabelled


def test_notebook_read_of_a_real_notebook_attaches_only_real_images(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    # nbconvert's notebook_inject.ipynb holds an empty PNG, an empty JPEG, undecodable base64 and 3-byte "images";
    # notebook4_jpeg.ipynb a real JPEG.
    for name in ("nbconvert-notebook_inject.ipynb", "nbconvert-notebook4_jpeg.ipynb"):
        shutil.copy(REAL / name, tmp_path / name)
    reads = [
        ToolUse(name="NotebookRead", input={"notebook_path": "nbconvert-notebook_inject.ipynb"}),
        ToolUse(name="NotebookRead", input={"notebook_path": "nbconvert-notebook4_jpeg.ipynb"}),
    ]
    h = harness([Turn(blocks=reads), DONE], tools=builtin_tools())
    assert h.run("look at both notebooks").reason == "end_turn"
    injected, jpeg = tool_results(h.server.requests[1])
    assert [b["type"] for b in injected["content"]] == ["text"]
    text = result_text(injected)
    assert "[image/png output not attached: it is empty (0 bytes)]" in text
    assert "[image/jpeg output not attached: it is empty (0 bytes)]" in text
    assert "[image/png output not attached: its data is not valid base64]" in text
    assert "[image/png output not attached: its 3 bytes are not a PNG, JPEG, GIF or WebP image" in text
    [image] = [b for b in jpeg["content"] if b["type"] == "image"]
    assert image["source"]["media_type"] == "image/jpeg"
    assert_valid_request(h.server.requests[1])
