"""UserPromptSubmit and Stop hooks in a run, through the real SDK and the scripted server: a blocked request is
never sent, added context goes with the request, a Stop hook sends the model back with its reason."""

from __future__ import annotations

import os
from pathlib import Path

from agent_testkit import HarnessFactory, assert_valid_request, texts

from jupyter_agent.agent.events import Notice
from jupyter_agent.testing import Text, Turn
from jupyter_agent.tools.command_hooks import CommandHook, CommandHooks, HookSession
from jupyter_agent.tools.hooks import Hooks, PromptBlocked, PromptContext


def test_a_blocked_request_is_never_sent_nor_kept(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("hello")])])
    h.session.hooks.user_prompt_submit = [
        lambda prompt: PromptBlocked(reason="no deploys from a notebook") if "deploy" in prompt else None
    ]
    finished = h.run("deploy to production")
    assert finished.reason == "blocked" and finished.turns == 0
    assert h.server.requests == []
    assert any(
        "a UserPromptSubmit hook blocked this request: no deploys from a notebook" in n.message
        for n in h.of(Notice)
    )
    h.run("say hello")
    (request,) = h.server.requests
    assert [texts(m) for m in request["messages"]] == [["say hello"]]


def test_what_a_prompt_hook_adds_goes_with_the_request(harness: HarnessFactory, tmp_path: Path) -> None:
    project = Path(os.path.realpath(tmp_path))
    hook = CommandHook(event="UserPromptSubmit", command="echo 'The sprint ends Friday.'", cwd=project)
    facts = HookSession(session_id="", transcript_path="", cwd=str(project), permission_mode="default")
    hooks = CommandHooks([hook], session=lambda: facts, report=lambda line: None)
    h = harness([Turn(blocks=[Text("noted")])])
    h.session.hooks.user_prompt_submit = [hooks.user_prompt_submit]
    h.run("plan the week")
    (request,) = h.server.requests
    assert texts(request["messages"][0]) == ["plan the week", "The sprint ends Friday."]


def test_a_stop_hook_sends_the_model_back_once_with_its_reason(harness: HarnessFactory) -> None:
    asked: list[bool] = []
    said: list[str] = []

    def stop(active: bool, last_message: str) -> str | None:
        asked.append(active)
        said.append(last_message)
        return None if active else "run the tests first"

    h = harness([Turn(blocks=[Text("Done.")]), Turn(blocks=[Text("Tests pass.")])])
    h.session.hooks.stop = [stop]
    finished = h.run("fix it")
    assert finished.reason == "end_turn" and finished.turns == 2
    assert asked == [False, True]
    assert said == ["Done.", "Tests pass."]  # Claude Code's `last_assistant_message`
    second = h.server.requests[1]
    assert_valid_request(second)
    assert (
        second["messages"][-1]["content"][-1]["text"]
        == "[A Stop hook asks you to continue: run the tests first]"
    )
    assert any(
        "a Stop hook sent the agent back to work: run the tests first" in n.message for n in h.of(Notice)
    )


def test_a_stop_hook_that_never_lets_go_is_bounded_by_max_turns(harness: HarnessFactory) -> None:
    h = harness(lambda body, index: Turn(blocks=[Text(f"done {index}")]), max_turns=3)
    h.session.hooks.stop = [lambda active, last: "again"]
    finished = h.run("go")
    assert finished.reason == "max_turns" and len(h.server.requests) == 3


def test_a_subagent_passes_the_tool_hooks_but_not_the_prompt_and_stop_hooks() -> None:
    hooks = Hooks(
        pre_tool_use=[lambda call: None],
        user_prompt_submit=[lambda prompt: PromptContext(text="x")],
        stop=[lambda active, last: "again"],
    )
    sub = hooks.for_subagent()
    assert sub.pre_tool_use == hooks.pre_tool_use
    assert sub.user_prompt_submit == [] and sub.stop == []
