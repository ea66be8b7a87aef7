"""What a run changed that outlives it (`take_changes`), as the values the run recorded: `RuleGranted` for an
"Always allow" answer, `ModeSwitched` for an approved plan; the host keeps them as settings
(tests/unit/host/test_host_layer.py shows that). The session's own policy is never changed by a run."""

from __future__ import annotations

import dataclasses
from typing import Any

from agent_testkit import HarnessFactory

from jupyter_agent.builtin_tools.workflow.asking import PlanApproval, PlanReview
from jupyter_agent.builtin_tools.workflow.plan import ExitPlanMode
from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.tools import ApprovalRequest, Approve, Rule, tool
from jupyter_agent.tools.dispatch import Approval
from jupyter_agent.tools.question import Question
from jupyter_agent.tools.scope import ModeSwitched, RuleGranted


@tool
def touch(name: str) -> str:
    """Pretends to change something (test double): not read-only, so it asks."""
    return f"touched {name}"


async def always(_request: ApprovalRequest) -> Approval:
    return Approve(always=True)


def test_a_run_reports_the_rules_always_allow_added_once(harness: HarnessFactory) -> None:
    h = harness(
        [Turn(blocks=[ToolUse(name="touch", input={"name": "a"})]), Turn(blocks=[Text("done")])],
        tools=[touch],
    )
    h.session.policy.allow.append(Rule("Read"))  # there before the run: not the run's change
    h.run("touch a", approver=always)
    assert h.session.take_changes() == (RuleGranted(Rule("touch")),)
    assert h.session.take_changes() == ()
    assert h.session.policy.allow == [Rule("Read")]  # the run's policy was its own copy


def test_always_allow_in_this_project_is_reported_as_such(harness: HarnessFactory) -> None:
    async def in_project(_request: ApprovalRequest) -> Approval:
        return Approve(in_project=True)

    calls = [ToolUse(name="touch", input={"name": n}) for n in "ab"]
    h = harness([Turn(blocks=calls), Turn(blocks=[Text("done")])], tools=[touch])
    h.run("touch both", approver=in_project)
    assert h.session.take_changes() == (
        RuleGranted(Rule("touch"), in_project=True),
    )  # the second did not ask


def test_a_run_with_nothing_granted_reports_nothing(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("hello")])])
    h.run("hi")
    assert h.session.take_changes() == ()


class Approves:
    """Approves every plan and switches to acceptEdits (test double of the person at the widgets)."""

    async def ask(self, request: Question[Any]) -> Any:
        assert isinstance(request, PlanApproval)
        return PlanReview(verdict="accept_edits")


def test_an_approved_plan_reports_the_mode_it_switched_to(harness: HarnessFactory) -> None:
    plan = ToolUse(name="ExitPlanMode", input={"plan": "1. do it"})
    h = harness([Turn(blocks=[plan]), Turn(blocks=[Text("doing it")])], tools=[ExitPlanMode()], mode="plan")
    h.session.ctx.services = dataclasses.replace(h.session.ctx.services, questions=Approves())
    h.run("plan it")
    assert h.session.take_changes() == (ModeSwitched("acceptEdits"),)
    assert h.session.policy.mode == "plan"  # the host switches later runs (keep), not the run itself
