"""A prompt per sub-agent type: a read-only one is taught nothing of modes and approvals, no sentence of one
contradicts another, and each says what its report must contain."""

from __future__ import annotations

import re
from typing import Any

import pytest
from agent_testkit import HarnessFactory, context_text

from jupyter_agent.agent.prompt import REPORT_READ_ONLY, REPORT_WORKER, PromptFacts, system_prompt
from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.builtin_tools.workflow import workflow_tools
from jupyter_agent.permissions.modes import MODES
from jupyter_agent.testing import Text, ToolUse, Turn

_READ_ONLY = system_prompt(PromptFacts(subagent=True, read_only=True))
_WORKER = system_prompt(PromptFacts(subagent=True))

#: Sentences that would teach a read-only agent modes or approvals.
_APPROVALS = re.compile(
    r"approv|permission|asks the user|card|denied|acceptEdits|bypassPermissions|plan mode", re.I
)


def test_a_read_only_subagent_is_taught_nothing_of_modes_and_approvals() -> None:
    assert not _APPROVALS.search(_READ_ONLY), _APPROVALS.findall(_READ_ONLY)
    assert not any(f"{mode}:" in _READ_ONLY for mode in MODES)


def test_a_subagent_that_can_change_things_is_told_its_calls_may_ask_and_what_a_denial_means() -> None:
    assert "may ask the user on a card" in _WORKER and "A denied call means no: do not retry it" in _WORKER


@pytest.mark.parametrize("prompt", [_READ_ONLY, _WORKER], ids=["read-only", "worker"])
def test_no_sentence_contradicts_another(prompt: str) -> None:
    # it cannot ask anyone, and nothing tells it to ask
    assert "No one answers questions while you work" in prompt
    assert "AskUserQuestion" not in prompt and "or ask" not in prompt and "ask them" not in prompt
    # a complete report, and nothing asks for a short one
    assert "make it complete on its own" in prompt
    assert "short Markdown" not in prompt and "Answer in short" not in prompt


@pytest.mark.parametrize(
    ("facts", "report"),
    [
        (PromptFacts(subagent=True, read_only=True), REPORT_READ_ONLY),
        (PromptFacts(subagent=True), REPORT_WORKER),
        (
            PromptFacts(subagent=True, read_only=True, report="A numbered plan of the change."),
            "A numbered plan",
        ),
    ],
    ids=["explore", "general-purpose", "own-report"],
)
def test_each_says_what_its_report_must_contain(facts: PromptFacts, report: str) -> None:
    prompt = system_prompt(facts)
    section = prompt.split("# Your report\n", 1)[1]
    assert section.startswith(report)


def test_explore_is_told_no_mode_and_general_purpose_the_mode_without_a_tool_it_lacks(
    harness: HarnessFactory,
) -> None:
    def script(body: dict[str, Any], index: int) -> Turn:
        if str(body["system"][0]["text"]).startswith("You are a sub-agent"):
            return Turn(blocks=[Text("report")])
        if index == 0:
            explore = {"description": "Look", "prompt": "Look.", "subagent_type": "Explore"}
            worker = {"description": "Plan", "prompt": "Plan.", "subagent_type": "general-purpose"}
            return Turn(
                blocks=[
                    ToolUse(name="Task", input=explore, id="toolu_explore"),
                    ToolUse(name="Task", input=worker, id="toolu_worker"),
                ]
            )
        return Turn(blocks=[Text("done")])

    h = harness(script, tools=[*file_tools(), *workflow_tools()], mode="plan")
    assert h.run("plan it").reason == "end_turn"
    by_task = {texts[-1]: body for body in h.server.requests if (texts := _user_texts(body))}
    explore, worker, main = by_task["Look."], by_task["Plan."], h.server.requests[0]
    assert "Permission mode" not in context_text(explore)
    assert not _APPROVALS.search(explore["system"][0]["text"])
    # the sub-agent has no ExitPlanMode, so it is told to give the plan as its answer; the main agent has it
    assert "Permission mode: plan:" in context_text(worker)
    assert "present the plan with ExitPlanMode" not in context_text(worker)
    assert "give the plan as your answer" in context_text(worker)
    assert "present the plan with ExitPlanMode" in context_text(main)


def _user_texts(body: dict[str, Any]) -> list[str]:
    first = body["messages"][-1]
    return [b["text"] for b in first["content"] if b.get("type") == "text" and not b["text"].startswith("[")]
