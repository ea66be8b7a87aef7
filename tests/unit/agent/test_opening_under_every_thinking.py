"""The conversation's opening (the repository's files handed over as the harness's own Read and Skill calls) is taken
by the strict server under every row of the model table and every thinking setting the row takes — with a
thinking budget (`thinking.type: "enabled"`) above all, where a request whose last user turn answers an assistant
turn without thinking is refused. A session with an AGENTS.md, a skill and a project sub-agent's definition: the
first request, a sub-agent's conversation (its own opening), and a second run after."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agent_testkit import HarnessFactory, assert_valid_request, texts

from jupyter_agent.agent.models import MODELS, UNKNOWN_MODEL, Accepts
from jupyter_agent.base.harness_texts import OPENING_CLOSE, OPENING_NOTE
from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.builtin_tools.skill import Skill, SkillTool
from jupyter_agent.builtin_tools.workflow import AgentType, TaskTool
from jupyter_agent.testing import SERVED_MODELS, Text, Thinking, ToolUse, Turn, scripted_model

#: A model name an Anthropic-compatible endpoint serves and the table does not know (it takes a budget).
ENDPOINT_MODEL = "acme-claude-large"


def _rows() -> list[tuple[str, Accepts]]:
    """One model per distinct `Accepts` row of the table (one the strict server serves, where there is one), and an
    endpoint's unknown model."""
    seen: dict[Accepts, str] = {}
    for name, facts in sorted(MODELS.items(), key=lambda item: item[0] not in SERVED_MODELS):
        seen.setdefault(facts.accepts, name)
    return [*((name, accepts) for accepts, name in seen.items()), (ENDPOINT_MODEL, UNKNOWN_MODEL)]


def _settings() -> list[Any]:
    """(model, thinking setting): a budget where the row takes one, and the model's default everywhere."""
    cases: list[Any] = []
    for name, accepts in _rows():
        cases.append(pytest.param(name, None, id=f"{name}-default"))
        if "enabled" in accepts.thinking_types:
            cases.append(pytest.param(name, 4096, id=f"{name}-budget"))
    return cases


def _is_subagent(body: dict[str, Any]) -> bool:
    return str(body["system"][0]["text"]).startswith("You are a sub-agent")


def _answers(body: dict[str, Any], call_id: str) -> bool:
    last = body["messages"][-1]["content"]
    return any(isinstance(b, dict) and b.get("tool_use_id") == call_id for b in last)


@pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
@pytest.mark.parametrize(("model", "thinking"), _settings())
def test_the_opening_passes_the_strict_server_first_and_after(
    harness: HarnessFactory, tmp_path: Path, model: str, thinking: int | None
) -> None:
    (tmp_path / "AGENTS.md").write_text("Dates are day-first.\n")
    (tmp_path / "skills" / "clean").mkdir(parents=True)
    (tmp_path / "skills" / "clean" / "SKILL.md").write_text("---\ndescription: Clean data\n---\nDrop NaNs.\n")
    skill = Skill(name="clean", description="Clean data", directory=tmp_path / "skills" / "clean")
    definition = tmp_path / ".claude" / "agents" / "checker.md"
    checker = AgentType(
        name="checker", description="Checks", prompt="You check dates.", source=str(definition)
    )
    accepts = UNKNOWN_MODEL if model == ENDPOINT_MODEL else MODELS[model].accepts
    thinks = thinking is not None or accepts.thinks_unasked
    think = [Thinking("Plan the next step.")] if thinks else []

    def script(body: dict[str, Any], index: int) -> Turn:
        if _is_subagent(body):
            if _answers(body, "toolu_sub_read"):
                return Turn(blocks=[*think, Text("Day-first, per AGENTS.md line 1.")])
            read = {"file_path": str(tmp_path / "AGENTS.md")}
            return Turn(blocks=[*think, ToolUse(name="Read", input=read, id="toolu_sub_read")])
        if _answers(body, "toolu_task"):
            return Turn(blocks=[*think, Text("Dates are day-first.")])
        if texts(body["messages"][-1])[-1] == "check the dates":
            task = {"description": "Check", "prompt": "Check the date format.", "subagent_type": "checker"}
            return Turn(blocks=[*think, ToolUse(name="Task", input=task, id="toolu_task")])
        return Turn(blocks=[*think, Text("Still day-first.")])

    # A model the server no longer serves (a retired one, an endpoint's own) is served like a budget model.
    served = [] if model in SERVED_MODELS else [scripted_model(model, like="claude-haiku-4-5")]
    h = harness(
        script,
        tools=[*file_tools(), SkillTool([skill]), TaskTool([checker])],
        server_options={"models": served},
        model=model,
        thinking=thinking,
    )
    assert h.run("check the dates").reason == "end_turn"
    assert h.run("and now?").reason == "end_turn"

    refused = [r.refusal for r in h.server.recorded if r.refusal is not None]
    assert refused == []
    first, subagent, subagent_after_read, after_task, second_run = h.server.requests
    for body in h.server.requests:
        assert_valid_request(body)
    # The files are still the harness's Read / Skill calls and their results, closed by its own note.
    note, calls, results, close, request = first["messages"]
    assert note["content"][0]["text"] == OPENING_NOTE
    assert [b["name"] for b in calls["content"]] == ["Read", "Skill"]
    assert [b["type"] for b in results["content"]] == ["tool_result", "tool_result"]
    assert close == {"role": "assistant", "content": [{"type": "text", "text": OPENING_CLOSE}]}
    assert texts(request)[-1] == "check the dates"
    assert [b["input"] for b in subagent["messages"][1]["content"]] == [
        {"file_path": str(definition)},
        {"file_path": str(tmp_path / "AGENTS.md")},
    ]
    assert subagent_after_read["messages"][:4] == subagent["messages"][:4]
    assert after_task["messages"][:4] == second_run["messages"][:4] == first["messages"][:4]
    assert texts(second_run["messages"][-1])[-1] == "and now?"
