"""`base_url` and `api_key_env`: a kernel whose ANTHROPIC_* variables point elsewhere reaches the endpoint
the settings name, with the key from the variable `api_key_env` names."""

from __future__ import annotations

import pytest
from frontend import AgentKernel

from jupyter_agent.testing import Text, Turn

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
