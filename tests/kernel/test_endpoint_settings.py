"""`base_url` and `api_key_env`: a kernel whose ANTHROPIC_* variables point elsewhere reaches the endpoint
the settings name, with the key from the variable `api_key_env` names; a variable changed in the kernel after the
first run applies at the next one; an endpoint that cannot be reached is one line naming it and the fix."""

from __future__ import annotations

import pytest
from frontend import AgentKernel

from jupyter_agent.testing import ScriptedServer, Text, Turn
from jupyter_agent.ui.view import WAITING_TEXT

pytestmark = pytest.mark.kernel


def test_base_url_and_api_key_env_choose_the_endpoint_and_its_key(agent_kernel: AgentKernel) -> None:
    frontend, server = agent_kernel(
        [Turn(blocks=[Text("hello from the local server")])],
        env={
            "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",  # nothing listens there
            "ANTHROPIC_API_KEY": "sk-ant-not-for-this-server",
            "LOCAL_LLM_KEY": "local-key-123",
        },
    )
    unset = frontend.run("%config AgentMagics.api_key_env = 'NOT_SET_ANYWHERE'").text()
    assert unset == ""
    refused = frontend.run("%%agent\nhi").text()
    assert (
        "UsageError: api_key_env names the environment variable NOT_SET_ANYWHERE, which is not set" in refused
    )
    assert server.requests == []

    frontend.run(f"%config AgentMagics.base_url = {server.url!r}")
    frontend.run("%config AgentMagics.api_key_env = 'LOCAL_LLM_KEY'")
    answer = frontend.run("%%agent\nhi", timeout=60).text()
    assert "hello from the local server" in answer
    [request] = [r for r in server.recorded if r.index == 0]
    sent_key = request.headers.get("x-api-key") or request.headers["authorization"]  # SDK 2.x: a bearer
    assert "local-key-123" in sent_key and "not-for-this-server" not in str(request.headers)


def test_a_new_base_url_and_key_in_the_kernel_apply_at_the_next_run(agent_kernel: AgentKernel) -> None:
    frontend, first = agent_kernel([Turn(blocks=[Text("from the first server")])], headless=True)
    second = ScriptedServer([Turn(blocks=[Text("from the second server")])]).start()
    try:
        assert "from the first server" in frontend.run("%%agent\nhi", timeout=60).text()
        frontend.run(
            f"import os\nos.environ['ANTHROPIC_BASE_URL'] = {second.url!r}\n"
            "os.environ['ANTHROPIC_API_KEY'] = 'sk-ant-the-new-key-456'"
        )
        status = frontend.run("%agent status", timeout=60).text()
        assert f"endpoint: {second.url} (from ANTHROPIC_BASE_URL)" in status
        assert "key:      key from ANTHROPIC_API_KEY (the value is never shown)" in status
        assert "the-new-key" not in status
        answer = frontend.run("%%agent\nand now?", timeout=60).text()
        assert "from the second server" in answer
        assert len(first.requests) == 1  # the second run went to the new address only
        [request] = second.recorded
        sent_key = request.headers.get("x-api-key") or request.headers["authorization"]
        assert "sk-ant-the-new-key-456" in sent_key
        assert "the-new-key" not in answer  # the new key is masked like the first one
    finally:
        second.stop()


def test_an_unreachable_endpoint_is_one_line_with_the_fix_and_no_footer(agent_kernel: AgentKernel) -> None:
    frontend, server = agent_kernel([Turn(blocks=[Text("never sent")])], headless=True)
    frontend.run(
        "import os\nos.environ['ANTHROPIC_BASE_URL'] = 'http://127.0.0.1:9'"
    )  # nothing listens there
    said = frontend.run("%%agent\nhi", timeout=60).text().splitlines()
    # "thinking…" is the status shown until the first block; the error takes its place
    lines = [line for line in said if line.strip() and line != WAITING_TEXT]
    assert len(lines) == 1, lines  # no "retrying in 1 s" lines before it, no footer after it
    [line] = lines
    assert line.startswith("⛔ cannot connect to the model API at http://127.0.0.1:9 (ConnectError")
    assert '%config AgentMagics.base_url = "http://host:port"' in line
    assert "$" not in line and "turn" not in line
    assert server.requests == []
