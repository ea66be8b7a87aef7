"""WebFetch as the Claude Agent SDK does it: the page is answered against the call's `prompt` by the small model,
through the run's client and endpoint (the scripted server here), masked like every request, priced into the
run's cost, and the main model gets the extract; `web_fetch_extract` off sends the page itself, as before."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_testkit import Harness, HarnessFactory, result_text, tool_results
from web_site import SiteHandler, serving

from jupyter_agent.agent.events import RunFinished, UsageUpdate
from jupyter_agent.agent.models import family_model
from jupyter_agent.agent.pricing import turn_cost
from jupyter_agent.base.sandbox import Sandbox
from jupyter_agent.builtin_tools.web import WebFetch
from jupyter_agent.builtin_tools.web.extract import EXTRACT_SYSTEM
from jupyter_agent.host.configure import run_setup
from jupyter_agent.masking import register
from jupyter_agent.settings import AgentSettings
from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.tools import PermissionPolicy, Rule

SECRET = "tok-" + "Zq7Lw2Xv9Tn3Mb8R"
PAGE = f"<html><head><title>Release notes</title></head><body><p>Version 7 ships on Monday.</p><p>key {SECRET}</p></body></html>"
PROMPT = "When does version 7 ship?"
EXTRACT = "Version 7 ships on Monday (the release notes say so)."


@pytest.fixture
def site() -> Iterator[str]:
    register("WEBFETCH_EXTRACT_TEST_KEY", SECRET)
    with serving() as port:
        SiteHandler.routes = {"/notes": (200, {"Content-Type": "text/html"}, PAGE.encode())}
        yield f"http://127.0.0.1:{port}/notes"


def _is_small(body: dict[str, Any]) -> bool:
    return body["system"][0]["text"] == EXTRACT_SYSTEM


def _script(url: str) -> Callable[[dict[str, Any], int], Turn]:
    def script(body: dict[str, Any], index: int) -> Turn:
        if _is_small(body):
            return Turn(blocks=[Text(EXTRACT)])
        if not tool_results(body):
            return Turn(blocks=[ToolUse(name="WebFetch", input={"url": url, "prompt": PROMPT})])
        return Turn(blocks=[Text("done")])

    return script


def _run(harness: HarnessFactory, url: str, tool: WebFetch) -> tuple[Harness, RunFinished]:
    h = harness(_script(url), tools=[tool])
    h.session.policy = PermissionPolicy(mode="default", allow=[Rule.parse("WebFetch(domain:127.0.0.1)")])
    finished = h.run("check the release notes")
    assert finished.reason == "end_turn", h.events
    return h, finished


def test_the_small_model_answers_the_prompt_from_the_page_and_the_main_model_gets_the_extract(
    harness: HarnessFactory, site: str
) -> None:
    h, finished = _run(harness, site, WebFetch())
    [small] = [b for b in h.server.requests if _is_small(b)]
    main = [b for b in h.server.requests if not _is_small(b)]
    assert small["model"] == family_model("haiku", main[0]["model"]) != main[0]["model"]
    [asked] = small["messages"]
    question = asked["content"][0]["text"]
    assert "Version 7 ships on Monday." in question and question.endswith(f"Question: {PROMPT}")
    assert "tools" not in small
    result = result_text(tool_results(main[-1])[0])
    assert EXTRACT in result and "Version 7 ships" not in result.replace(EXTRACT, "")
    # priced into the run: the small model's turn at its own rates, between the main model's two
    updates = h.of(UsageUpdate)
    assert len(updates) == 3 and finished.usage == updates[-1].run
    models = [main[0]["model"], small["model"], main[0]["model"]]
    expected = sum(turn_cost(model, update.turn) for model, update in zip(models, updates, strict=True))
    assert updates[1].turn.input > 0 and finished.cost_usd == pytest.approx(expected)
    assert turn_cost(small["model"], updates[1].turn) > 0


def test_a_secret_in_the_page_is_masked_in_the_small_models_request(
    harness: HarnessFactory, site: str
) -> None:
    h, _ = _run(harness, site, WebFetch())
    [small] = [b for b in h.server.requests if _is_small(b)]
    sent = json.dumps(small)
    assert SECRET not in sent and "[redacted: WEBFETCH_EXTRACT_TEST_KEY]" in sent
    assert all(SECRET not in json.dumps(b) for b in h.server.requests)


def test_with_extraction_off_the_page_goes_to_the_main_model_and_no_small_request_is_made(
    harness: HarnessFactory, site: str, tmp_path: Path
) -> None:
    setup = run_setup(AgentSettings(web_fetch_extract=False), sandbox=Sandbox.at(tmp_path))
    [tool] = setup.sources["webfetch"]
    assert isinstance(tool, WebFetch)
    h, _ = _run(harness, site, tool)
    assert not any(_is_small(b) for b in h.server.requests)
    result = result_text(tool_results(h.server.requests[-1])[0])
    assert "Version 7 ships on Monday." in result and f"Look in it for: {PROMPT}" in result
    assert EXTRACT not in result


def test_the_small_model_setting_names_the_model_asked(
    harness: HarnessFactory, site: str, tmp_path: Path
) -> None:
    setup = run_setup(AgentSettings(small_model="claude-haiku-4-5"), sandbox=Sandbox.at(tmp_path))
    h = harness(_script(site), tools=list(setup.sources["webfetch"]), small_model=setup.config.small_model)
    h.session.policy = PermissionPolicy(mode="default", allow=[Rule.parse("WebFetch(domain:127.0.0.1)")])
    assert h.run("check the release notes").reason == "end_turn"
    assert [b["model"] for b in h.server.requests if _is_small(b)] == ["claude-haiku-4-5"]
