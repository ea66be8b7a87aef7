"""Waits the user can see, in a real kernel: a retry-after counted down in the cell; the cap and the stall
timeout are settings (`%config AgentMagics.…`)."""

from __future__ import annotations

import pytest
from frontend import AgentKernel

from jupyter_agent.testing import Fault, Text, Turn

pytestmark = pytest.mark.kernel


def test_a_retry_after_is_counted_down_in_the_cell(agent_kernel: AgentKernel) -> None:
    frontend, server = agent_kernel(
        [Turn(fault=Fault.rate_limit(retry_after=1.5)), Turn(blocks=[Text("here")])]
    )
    cell = frontend.run("%%agent\nhello", timeout=60)
    text = cell.text()
    assert "⏳ rate limited (429): the API asked to wait 1.5 s; retrying in 2 s (retry 1 of 3)" in text
    assert "⏳ rate limited (429): retried after 1.5 s (retry 1 of 3)" in text
    assert "here" in text and len(server.requests) == 2


def test_the_wait_cap_and_the_stall_timeout_are_settings(agent_kernel: AgentKernel) -> None:
    frontend, server = agent_kernel(
        [
            Turn(fault=Fault.rate_limit(retry_after=5)),
            Turn(blocks=[Text("stalls")], fault=Fault.stall(after_events=3, seconds=60)),
            Turn(blocks=[Text("stalls")], fault=Fault.stall(after_events=3, seconds=60)),
        ]
    )
    frontend.run("%config AgentMagics.retry_wait_max = 2\n%config AgentMagics.model_stall_timeout = 0.5")
    capped = frontend.run("%%agent\nfirst", timeout=60).text()
    assert (
        "the API asks to wait 5 s before trying again (retry-after), longer than retry_wait_max (2 s)"
        in capped
    )
    assert f"the model API at {server.url}" in capped
    stalled = frontend.run("%%agent\nsecond", timeout=60).text()
    assert (
        "broke off twice in the middle (ReadTimeout: nothing arrived for 0.5 s (model_stall_timeout))"
        in stalled
    )
    refused = frontend.run("%config AgentMagics.mcp_timeout = 0")
    assert "mcp_timeout is a number of seconds and must be positive, got 0.0" in refused.text()
