"""Sessions outlive their kernel: a real kernel saves as it goes, a second kernel on the same notebook resumes it;
`--think` sends the thinking parameter and the thinking shows collapsed."""

from __future__ import annotations

from pathlib import Path

import pytest
from frontend import AgentKernel

from jupyter_agent.base.harness_texts import request_text
from jupyter_agent.sessions import list_sessions, load_session
from jupyter_agent.testing import Text, Thinking, Turn

pytestmark = pytest.mark.kernel


def test_a_second_kernel_resumes_the_saved_session_and_its_next_request_carries_the_earlier_messages(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    data = tmp_path / "jupyter-data"
    env = {"JUPYTER_DATA_DIR": str(data)}
    first, _ = agent_kernel([Turn(blocks=[Text("The parser drops March.")])], env=env)
    done = first.run("%%agent\nwhy is March missing?", timeout=120)
    assert "The parser drops March." in done.text()
    roots = data / "jupyter_agent" / "sessions"
    [saved] = list_sessions(tmp_path / "analysis.ipynb", root=roots)
    assert [m["role"] for m in load_session(saved.path).messages] == ["user", "assistant"]
    first.close()  # the first kernel is gone; its session is data

    second, server = agent_kernel([Turn(blocks=[Text("April is fine.")])], env=env)
    listing = second.run("%agent sessions").text()
    assert saved.id in listing and "why is March missing?" in listing
    resumed = second.run("%agent resume").text()
    assert f"resumed session {saved.id}" in resumed
    second.run("%%agent\nand April?", timeout=120)
    [request] = server.requests
    earlier, answer, *_, latest = request["messages"]
    assert earlier["role"] == "user" and request_text(earlier["content"]) == "why is March missing?"
    assert answer == {"role": "assistant", "content": [{"type": "text", "text": "The parser drops March."}]}
    assert latest["role"] == "user" and "and April?" in [b.get("text") for b in latest["content"]]


def test_think_sends_the_thinking_parameter_and_the_thinking_renders_collapsed(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, server = agent_kernel(
        [Turn(blocks=[Thinking("Check the date parser first."), Text("It is the parser.")])],
        env={"JUPYTER_DATA_DIR": str(tmp_path / "jupyter-data")},
    )
    cell = frontend.run("%%agent --think 2048\nwhy?", timeout=120)
    # The default model takes no budget: it thinks adaptively at the effort the budget stands for, summarized.
    assert server.requests[0]["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert server.requests[0]["output_config"] == {"effort": "low"}
    html = cell.html()
    assert '<details class="jp-agent-thinking" style="opacity:0.6' in html
    assert '<details class="jp-agent-thinking" open' not in html
    assert "Check the date parser first." in html
    assert "Check the date parser first." not in cell.text()
    assert "It is the parser." in cell.text()
