"""Local model servers document their OpenAI-style address, `http://localhost:1234/v1`; given as `base_url`, the
SDK posts to `/v1/v1/messages` and the server answers 404. The run's error says to drop the /v1 and shows the
setting to use, instead of "Check the model name"."""

from __future__ import annotations

from agent_testkit import HarnessFactory

from jupyter_agent.agent.events import ErrorEvent
from jupyter_agent.testing import Text, Turn


def test_a_base_url_ending_in_v1_is_told_to_drop_it(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("unused")])])
    finished = h.run("hello", config={"base_url": h.server.url + "/v1"})
    assert finished.reason == "error"
    (error,) = [e.message for e in h.of(ErrorEvent)]
    assert "not found (404)" in error
    assert f'drop the /v1 (`%config AgentMagics.base_url = "{h.server.url}"`' in error
    assert "Check the model name" not in error


def test_a_404_at_a_plain_address_still_points_at_the_model_name(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("unused")])])
    finished = h.run("hello", config={"base_url": h.server.url + "/nothing-here"})
    assert finished.reason == "error"
    (error,) = [e.message for e in h.of(ErrorEvent)]
    assert "Check the model name" in error and "drop the /v1" not in error
