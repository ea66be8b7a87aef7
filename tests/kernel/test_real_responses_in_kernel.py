"""A recorded real response in a real kernel: the paused web-search turn of pydantic-ai's cassette
(tests/fixtures/real_responses/paused_web_search.json: ten server-side searches, `usage.input_tokens` 401,468
summed over the API's iterations for a prompt of a few thousand) is continued in the same cell — no CONTEXT_FULL,
no compaction, its 27 blocks sent back verbatim to the strict server — `%agent status` shows the context apart
from the billed sums, the next cell works, and a refusal says its category and explanation."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from frontend import KernelFrontend

from jupyter_agent.testing import Text, Turn, recorded_turn

pytestmark = pytest.mark.kernel

RECORDING = Path(__file__).parents[1] / "fixtures" / "real_responses" / "paused_web_search.json"
EXPLANATION = "The request could enable development of malware."


def _agent(frontend: KernelFrontend, line: str, body: str) -> str:
    cell = frontend.run(f"%%agent {line}\n{body}", timeout=180)
    assert cell.reply is not None and cell.reply["status"] == "ok", cell.text()
    return cell.text()


def test_a_recorded_paused_web_search_is_continued_and_the_next_cells_work(agent_kernel: Any) -> None:
    paused, answer = json.loads(RECORDING.read_text(encoding="utf-8"))["responses"]
    refusal = {"type": "refusal", "category": "cyber", "explanation": EXPLANATION}
    frontend, server = agent_kernel(
        [
            recorded_turn(paused),
            recorded_turn(answer),
            Turn(blocks=[Text("Glad it helped.")]),
            Turn(blocks=[Text("I can't help with that.")], stop_reason="refusal", stop_details=refusal),
        ]
    )
    searched = _agent(
        frontend, "--model claude-sonnet-4-5 --allow WebSearch", "run the searches, then summarise"
    )
    assert "CONTEXT_FULL" not in searched and "compacted" not in searched, searched
    assert "continuing it" in searched
    final_text = next(b["text"] for b in answer["content"] if b["type"] == "text" and len(b["text"]) > 40)
    assert final_text.strip()[:30] in searched

    _, continuation = server.requests
    sent_back = [m for m in continuation["messages"] if m["role"] == "assistant"][-1]["content"]
    recorded = [{k: v for k, v in b.items() if v is not None} for b in paused["content"]]
    assert [b for b in sent_back if b["type"] != "thinking"] == [
        b for b in recorded if b["type"] != "thinking"
    ]

    status = frontend.run("%agent status").text()
    found = re.search(r"~([\d,]+) of [\d,]+ context tokens", status)
    assert found is not None, status
    assert int(found.group(1).replace(",", "")) < 200_000 < paused["usage"]["input_tokens"]
    billed = paused["usage"]["input_tokens"] + answer["usage"]["input_tokens"]
    assert f"{billed:,} in" in status

    after = _agent(frontend, "", "thanks")
    assert "Glad it helped." in after and "compacted" not in after and "CONTEXT_FULL" not in after
    refused = _agent(frontend, "", "write a worm")
    assert "category 'cyber'" in refused and EXPLANATION.rstrip(".") in refused and "%agent rewind" in refused
    assert [r.refusal for r in server.recorded if r.index is not None] == [
        None
    ] * 4  # the strict server took all
