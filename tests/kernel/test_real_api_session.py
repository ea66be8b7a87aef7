"""A whole session on the default model (claude-sonnet-5-5, which thinks unasked) against the strict scripted server,
in a real kernel: mode changes, WebSearch for one cell, a `@jupyter_agent.tool` and an MCP server appearing between
runs, a deny rule, a sub-agent, `--think` / `--effort`, a whitespace-only result, a 4.5 MB PNG, `--max-turns` then
`%agent compact`, `pause_turn`, a refusal, `%agent rewind`, and `%agent resume` in a new kernel. The server refuses
what the real API refuses (a changed prefix under a thinking block included): no request may be refused, `system`
and `tools` are the same bytes in every request of the conversation, and the model's thinking is kept."""

from __future__ import annotations

import json
import struct
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from frontend import AgentKernel, KernelFrontend

from jupyter_agent.agent.compact import SUMMARY_INSTRUCTION
from jupyter_agent.base.harness_texts import is_harness_text
from jupyter_agent.testing import (
    SearchHit,
    ServerToolUse,
    Text,
    Thinking,
    ToolUse,
    Turn,
    WebSearchResult,
)

pytestmark = pytest.mark.kernel

ECHO = {
    "command": sys.executable,
    "args": [str(Path(__file__).parents[1] / "fixtures" / "mcp_echo_server.py")],
}
USER_TOOLS = '''\
import jupyter_agent

@jupyter_agent.tool(read_only=True)
def shout(text: str) -> str:
    """Shout the text."""
    return text.upper()

@jupyter_agent.tool(read_only=True)
def blank() -> str:
    """Print only blank lines."""
    return "\\n  \\n"
'''
PAGES = [SearchHit(title="pandas 3.0", url="https://pandas.pydata.org/docs/whatsnew/v3.0.0.html")]


def _png(path: Path, size: int) -> None:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 64, 64, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"tEXt", b"x" * size) + chunk(b"IEND", b"")
    )


def _last_user(body: dict[str, Any]) -> dict[str, Any]:
    return [m for m in body["messages"] if m["role"] == "user"][-1]


def _request_text(body: dict[str, Any]) -> str:
    """The user's words in the latest user message that has any (the cell's request)."""
    for message in reversed(body["messages"]):
        if message["role"] != "user":
            continue
        said = [
            b["text"] for b in message["content"] if b["type"] == "text" and not is_harness_text(b["text"])
        ]
        if said:
            return said[-1]
    return ""


class Model:
    """The scripted model of the session: it answers by what the cell asked, always thinking first."""

    def __init__(self) -> None:
        self.paused = False

    def __call__(self, body: dict[str, Any], index: int) -> Turn:
        last = body["messages"][-1]
        if body["system"][0]["text"].startswith("You are a sub-agent"):
            return Turn(blocks=[Thinking("Looking around."), Text("The sub-agent's report.")])
        if last["role"] == "assistant":  # a paused turn sent back to be continued
            return Turn(blocks=[Text("Continued after the pause.")])
        if any(b.get("text") == SUMMARY_INSTRUCTION for b in _last_user(body)["content"]):
            return Turn(blocks=[Text("SUMMARY: the session read loader.py, searched, and ran tools.")])
        if any(
            b["type"] == "tool_result" for b in _last_user(body)["content"]
        ) and "loop" not in _request_text(body):
            return Turn(blocks=[Thinking("That answers it."), Text("Done.")])
        return self._answer(_request_text(body))

    def _answer(self, request: str) -> Turn:
        thinking = Thinking(f"Working on: {request[:40]}")
        calls = {
            "read": ToolUse(name="Read", input={"file_path": "loader.py"}),
            "shout": ToolUse(name="shout", input={"text": "hi"}),
            "echo": ToolUse(name="mcp__echo__echo", input={"text": "hi"}),
            "blank": ToolUse(name="blank", input={}),
            "png": ToolUse(name="Read", input={"file_path": "big.png"}),
            "task": ToolUse(name="Task", input={"description": "Look", "prompt": "Find the loader."}),
            "loop": ToolUse(name="Read", input={"file_path": "loader.py"}),
        }
        for word, call in calls.items():
            if word in request:
                return Turn(blocks=[thinking, call])
        if "search" in request:
            return Turn(
                blocks=[
                    thinking,
                    ServerToolUse(input={"query": "pandas 3"}),
                    WebSearchResult(results=PAGES),
                    Text("Found."),
                ]
            )
        if "pause" in request and not self.paused:
            self.paused = True
            return Turn(
                blocks=[
                    ServerToolUse(input={"query": "long"}),
                    WebSearchResult(results=PAGES),
                    Text("Searching on."),
                ],
                stop_reason="pause_turn",
            )
        if "refuse" in request:
            return Turn(blocks=[], stop_reason="refusal")
        return Turn(blocks=[thinking, Text(f"Answered: {request[:40]}")])


def _agent(frontend: KernelFrontend, line: str, body: str) -> str:
    cell = frontend.run(f"%%agent {line}\n{body}", timeout=180)
    assert cell.reply is not None and cell.reply["status"] == "ok", cell.text()
    return cell.text()


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _prefix(body: dict[str, Any]) -> tuple[str, str]:
    return json.dumps(_plain(body["system"])), json.dumps(_plain(body.get("tools", [])))


def _wait_connected(frontend: KernelFrontend, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while True:
        text = frontend.run("%agent mcp").text()
        if any(line.startswith("echo") and " connected " in line for line in text.splitlines()):
            return
        assert time.monotonic() < deadline, text
        time.sleep(0.5)


def test_a_whole_session_passes_the_strict_server_with_its_prefix_unchanged_and_its_thinking_kept(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    (tmp_path / "loader.py").write_text("def load():\n    return range(1, 3)\n")
    _png(tmp_path / "big.png", 4_500_000)
    model = Model()
    frontend, server = agent_kernel(model, headless=True)
    frontend.run("%config AgentMagics.save_sessions = True")

    # a budget model in a conversation of its own: max_tokens stays within its 64K ceiling
    _agent(frontend, "--new --model claude-haiku-4-5 --think 40000", "hello")
    budget = server.requests[-1]
    assert (
        budget["thinking"] == {"type": "enabled", "budget_tokens": 40_000} and budget["max_tokens"] == 64_000
    )
    first = len(server.requests)

    _agent(frontend, "--new", "read the loader")
    _agent(frontend, "--mode acceptEdits", "anything in acceptEdits")
    frontend.run("%agent mode plan")
    _agent(frontend, "", "plan the fix")
    frontend.run("%agent mode default")
    _agent(frontend, "--allow WebSearch", "search for pandas 3")
    _agent(frontend, "", "no search now")
    frontend.run(USER_TOOLS)
    _agent(frontend, "", "shout it")
    frontend.run(f"%config AgentMagics.mcp_servers = {{'echo': {ECHO!r}}}")
    frontend.run("%config AgentMagics.allow = ['mcp__echo__*']")
    _wait_connected(frontend)
    _agent(frontend, "", "echo it")
    frontend.run("%agent deny Glob")
    _agent(frontend, "", "after the deny")
    _agent(frontend, "", "blank please")
    png = _agent(frontend, "", "png please")
    _agent(frontend, "", "task please")
    _agent(frontend, "--think 16000", "think hard")
    _agent(frontend, "--effort low", "quick one")
    stopped = _agent(frontend, "--max-turns 2", "loop on it")
    assert "max_turns" in stopped, stopped
    compacted = frontend.run("%agent compact", timeout=120).text()
    assert "compacted" in compacted, compacted
    _agent(frontend, "", "after the compaction")
    _agent(frontend, "--allow WebSearch", "pause please")
    refused = _agent(frontend, "", "refuse please")
    assert "refusal" in refused
    rewound = frontend.run("%agent rewind", timeout=120).text()
    assert "rewound" in rewound.lower(), rewound
    _agent(frontend, "", "after the rewind")

    recorded = [r for r in server.recorded if r.index is not None]
    refusals = [(r.index, r.refusal) for r in recorded if r.refusal is not None]
    assert refusals == [], refusals  # the strict server refused nothing the session sent
    bodies = server.requests[first:]
    main = [b for b in bodies if not b["system"][0]["text"].startswith("You are a sub-agent")]
    assert len(main) >= 25
    assert len({_prefix(b) for b in main}) == 1, "system or tools changed within the conversation"
    assert not any("block_binding" in json.dumps(b.get("thinking")) for b in bodies)  # nothing needed repair
    sent_thinking = [
        blk
        for b in main
        for m in b["messages"]
        if m["role"] == "assistant"
        for blk in m["content"]
        if blk["type"] == "thinking"
    ]
    assert sent_thinking, "the model's thinking went back with later requests"
    systems = [blk for b in main for m in b["messages"] if m["role"] == "system" for blk in m["content"]]
    kinds = {
        (blk["type"], (blk["tool"].get("name") or blk["tool"].get("definition", {}).get("name")))
        for blk in systems
    }
    assert ("tool_addition", "web_search") in kinds and ("tool_removal", "web_search") in kinds
    assert ("tool_addition", "shout") in kinds and ("tool_addition", "mcp__echo__echo") in kinds
    assert ("tool_removal", "Glob") in kinds
    blank_result = [
        blk
        for b in main
        for blk in _last_user(b)["content"]
        if blk["type"] == "tool_result" and blk["content"] == [{"type": "text", "text": "(only whitespace)"}]
    ]
    assert blank_result
    assert "limit for images" in png and not any('"type": "image"' in json.dumps(b) for b in main)
    assert any(
        b["model"] == "claude-sonnet-5-5" and b.get("output_config") == {"effort": "low"} for b in main
    )
    assert any(b.get("output_config") == {"effort": "high"} for b in main)  # --think 16000, mapped

    # a new kernel resumes the saved conversation: the same prefix, the kernel's restart told as an update
    frontend.close()
    second, again = agent_kernel(Model(), headless=True)
    resumed = second.run("%agent resume", timeout=60).text()
    assert "resumed session" in resumed, resumed
    _agent(second, "", "after the resume")
    [after] = again.requests
    assert [r.refusal for r in again.recorded if r.index is not None] == [None]
    assert _prefix(after) == _prefix(main[-1])
    update = [
        b["text"]
        for b in _last_user(after)["content"]
        if b["type"] == "text" and b["text"].startswith("[Update")
    ]
    assert update and "- Kernel: " in update[0]
