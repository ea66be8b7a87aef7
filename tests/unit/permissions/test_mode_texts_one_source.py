"""Every text that describes a mode — the system prompt, the session context and its update, the policy's refusal,
the result of an approved plan — is made from one table (`permissions.modes.MODE_TEXTS`): a change to the table
changes all of them, so none can say something else."""

from __future__ import annotations

import pytest

from jupyter_agent.agent.facts import SessionFacts, facts_text
from jupyter_agent.agent.prompt import PromptFacts, system_prompt
from jupyter_agent.permissions.modes import MODE_TEXTS, MODES, Mode, ModeText
from jupyter_agent.permissions.policy import CallFacts, Deny, PermissionPolicy

_RUNS = "RUNS-SENTINEL"
_PRESENT = "PRESENT-SENTINEL"
_WITHOUT = "WITHOUT-SENTINEL"


def _facts(mode: Mode, tools: tuple[str, ...]) -> SessionFacts:
    return SessionFacts(cwd="/w", kernel="k", mode=mode, date="2026-12-01", tool_names=tools)


def _write(tool: str = "Write") -> CallFacts:
    return CallFacts(
        tool=tool, subject="a.py", rule_kind="path", kind="edit", read_only=False, access="write"
    )


@pytest.fixture
def sentinel_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    text = ModeText(help="h", runs=_RUNS, present=_PRESENT, present_without_tool=_WITHOUT)
    monkeypatch.setitem(MODE_TEXTS, "plan", text)


@pytest.mark.usefixtures("sentinel_plan")
def test_the_prompt_the_context_the_update_and_the_refusal_all_say_the_tables_plan() -> None:
    prompt = system_prompt(PromptFacts())
    assert f"- plan: {_RUNS}. Investigate, then {_PRESENT}. Without ExitPlanMode, {_WITHOUT}." in prompt
    with_tool = _facts("plan", ("Read", "ExitPlanMode")).lines()["Permission mode"]
    assert with_tool == f"plan: {_RUNS}. Investigate, then {_PRESENT}."
    without_tool = _facts("plan", ("Read",)).lines()["Permission mode"]
    assert without_tool == f"plan: {_RUNS}. Investigate, then {_WITHOUT}."
    update = facts_text(_facts("default", ("Read",)).lines(), _facts("plan", ("ExitPlanMode",)).lines())
    assert update is not None and update.endswith(
        f"- Permission mode: plan: {_RUNS}. Investigate, then {_PRESENT}."
    )
    refusal = PermissionPolicy(mode="plan").decide(_write("RunCode"))
    assert refusal == Deny(
        message=f"RunCode is not available in plan mode: {_RUNS}. Investigate, then {_PRESENT}. "
        f"Without ExitPlanMode, {_WITHOUT}."
    )


@pytest.mark.parametrize("mode", MODES)
def test_each_modes_line_in_the_prompt_is_the_one_the_context_tells(mode: Mode) -> None:
    prompt = system_prompt(PromptFacts())
    told = _facts(mode, ("Read",)).lines()["Permission mode"]
    assert told.startswith(f"{mode}: {MODE_TEXTS[mode].runs}.")
    assert f"- {mode}: {MODE_TEXTS[mode].runs}." in prompt


def test_plan_mode_says_what_it_removes_and_that_exit_plan_mode_presents_the_plan() -> None:
    plan = MODE_TEXTS["plan"]
    for removed in ("RunCode", "RunCell", "Bash", "every edit"):
        assert removed in plan.runs
    assert "ExitPlanMode" in plan.present
    refusal = PermissionPolicy(mode="plan").decide(_write("NotebookEdit"))
    assert isinstance(refusal, Deny) and plan.runs in refusal.message and plan.present in refusal.message
