"""Task: sub-agents with their own conversation through the same client, with narrowed tools, run concurrently."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from agent_testkit import HarnessFactory, assert_valid_request, result_text, texts, tool_results

from jupyter_agent.agent import ToolFinished, ToolStarted
from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.builtin_tools.workflow import TaskTool, workflow_tools
from jupyter_agent.testing import ScriptedUsage, Text, ToolUse, Turn

PARENT_TOOLS = [*file_tools(), *workflow_tools()]


def _is_subagent(body: dict[str, Any]) -> bool:
    text = body["system"][0]["text"]
    return text.startswith("You are a sub-agent") or "\n\nYou are a sub-agent" in text


def _task_prompt(body: dict[str, Any]) -> str:
    return texts(body["messages"][0])[0]


def _report(block: dict[str, Any]) -> str:
    """A Task result without the agent_id line that ends it."""
    text = result_text(block)
    assert "\n\nagent_id: agent_" in text
    return text.split("\n\nagent_id: ", 1)[0]


def _tool_names(body: dict[str, Any]) -> set[str]:
    return {t["name"] for t in body.get("tools", [])}


def test_an_explore_subagent_gets_only_read_only_tools_and_its_report_is_the_result(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    (tmp_path / "loader.py").write_text("MONTHS = ['Jan', 'Feb']\n")

    def script(body: dict[str, Any], index: int) -> Turn:
        if _is_subagent(body):
            if len(body["messages"]) == 1:
                return Turn(
                    blocks=[ToolUse(name="Read", input={"file_path": "loader.py"}, id="toolu_sub_read")]
                )
            return Turn(blocks=[Text("March is missing from MONTHS in loader.py line 1.")])
        if index == 0:
            task = {"description": "Find the March bug", "prompt": "Find why March is missing."}
            return Turn(blocks=[ToolUse(name="Task", input=task, id="toolu_task")])
        return Turn(blocks=[Text("Found it.")])

    h = harness(script, tools=PARENT_TOOLS, mode="default")
    finished = h.run("why is March missing?")
    assert finished.reason == "end_turn"
    subagent_requests = [b for b in h.server.requests if _is_subagent(b)]
    assert len(subagent_requests) == 2
    for body in subagent_requests:
        assert _tool_names(body) == {"Read", "Glob", "Grep"}
        assert _task_prompt(body) == "Find why March is missing."
        assert_valid_request(body)
    parent_last = h.server.requests[-1]
    assert not _is_subagent(parent_last)
    (block,) = tool_results(parent_last)
    assert block["tool_use_id"] == "toolu_task"
    assert _report(block) == "March is missing from MONTHS in loader.py line 1."
    # the sub-agent's call is shown nested under the Task card; the Task card itself is top-level
    started = {e.call_id: e for e in h.of(ToolStarted)}
    assert started["toolu_sub_read"].parent_id == "toolu_task"
    assert started["toolu_task"].parent_id == ""
    finished_cards = {e.call_id: e for e in h.of(ToolFinished)}
    assert finished_cards["toolu_sub_read"].parent_id == "toolu_task"
    assert not finished_cards["toolu_sub_read"].result.is_error


def test_a_general_purpose_subagent_gets_the_parents_tools_and_permissions_but_cannot_start_tasks(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    def script(body: dict[str, Any], index: int) -> Turn:
        if _is_subagent(body):
            if len(body["messages"]) == 1:
                write = {"file_path": "out.txt", "content": "x"}
                return Turn(blocks=[ToolUse(name="Write", input=write, id="toolu_sub_write")])
            return Turn(blocks=[Text("I could not write out.txt: it was denied.")])
        if index == 0:
            task = {
                "description": "Write out",
                "prompt": "Write out.txt.",
                "subagent_type": "general-purpose",
            }
            return Turn(blocks=[ToolUse(name="Task", input=task, id="toolu_task")])
        return Turn(blocks=[Text("ok")])

    h = harness(script, tools=PARENT_TOOLS, mode="default")
    h.run("write out.txt")  # the default approver refuses: no one is there to approve
    body = next(b for b in h.server.requests if _is_subagent(b))
    assert _tool_names(body) == {"Read", "Write", "Edit", "MultiEdit", "Glob", "Grep"}
    denied = next(e for e in h.of(ToolFinished) if e.call_id == "toolu_sub_write")
    assert denied.result.error_code == "DENIED"
    assert not (tmp_path / "out.txt").exists()


def test_two_task_calls_of_one_turn_run_at_the_same_time_and_their_usage_counts_in_the_run(
    harness: HarnessFactory,
) -> None:
    # Each sub-agent's first request waits at the barrier until the other's arrived: run one after the
    # other, the first would wait alone and the barrier would break.
    both_asking = threading.Barrier(2, timeout=20)

    def script(body: dict[str, Any], index: int) -> Turn:
        usage = ScriptedUsage(input_tokens=100, output_tokens=10)
        if _is_subagent(body):
            both_asking.wait()
            return Turn(blocks=[Text(f"report for {_task_prompt(body)}")], usage=usage)
        if index == 0:
            calls = [
                ToolUse(name="Task", input={"description": f"Look {n}", "prompt": n}, id=f"toolu_{n}")
                for n in ("A", "B")
            ]
            return Turn(blocks=calls, usage=usage)
        return Turn(blocks=[Text("both done")], usage=usage)

    h = harness(script, tools=PARENT_TOOLS)
    finished = h.run("look at A and B")
    assert finished.reason == "end_turn"
    assert not both_asking.broken
    results = {b["tool_use_id"]: _report(b) for b in tool_results(h.server.requests[-1])}
    assert results == {"toolu_A": "report for A", "toolu_B": "report for B"}
    # two parent turns and one turn of each sub-agent
    assert finished.usage.input == 400 and finished.usage.output == 40
    assert h.session.usage.input == 400


def test_stop_while_a_subagent_works_interrupts_the_run_and_the_next_run_works(
    harness: HarnessFactory,
) -> None:
    subagent_asked = threading.Event()

    def script(body: dict[str, Any], index: int) -> Turn:
        if _is_subagent(body):
            subagent_asked.set()
            return Turn(blocks=[Text("a long report " * 50)], delay=0.05, chunk_size=4)
        if index == 0:
            task = {"description": "Slow look", "prompt": "look slowly"}
            return Turn(blocks=[ToolUse(name="Task", input=task, id="toolu_task")])
        return Turn(blocks=[Text("ok")])

    h = harness(script, tools=PARENT_TOOLS)
    future = h.start("look")
    assert subagent_asked.wait(10)
    h.worker.stop_current()
    assert future.result(timeout=10).reason == "interrupted"
    card = next(e for e in h.of(ToolFinished) if e.call_id == "toolu_task")
    assert card.result.error_code == "INTERRUPTED"
    assert h.run("again").reason == "end_turn"
    last = h.server.requests[-1]
    assert not _is_subagent(last)
    assert_valid_request(last)


def test_the_task_definition_the_model_sees_is_pinned() -> None:
    param = TaskTool().to_param()
    assert param["input_schema"] == {
        "additionalProperties": False,
        "properties": {
            "description": {
                "description": "A short (3–5 word) description of the task, shown to the user.",
                "minLength": 1,
                "type": "string",
            },
            "prompt": {
                "description": "The task for the sub-agent: everything it needs to know, and what to report back.",
                "minLength": 1,
                "type": "string",
            },
            "subagent_type": {
                "default": "Explore",
                "description": "Explore (read-only tools, the default), general-purpose (your tools and permissions) "
                "or Plan.",
                "enum": ["Explore", "general-purpose", "Plan"],
                "type": "string",
            },
            "model": {
                "anyOf": [{"enum": ["sonnet", "opus", "haiku"], "type": "string"}, {"type": "null"}],
                "default": None,
                "description": "The model family for the sub-agent (its newest model); left out: the agent type's "
                "model, else yours.",
            },
            "max_turns": {
                "anyOf": [{"minimum": 1, "type": "integer"}, {"type": "null"}],
                "default": None,
                "description": "At most this many model turns for the sub-agent (never more than your own limit).",
            },
            "resume": {
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "default": None,
                "description": "The agent_id a finished sub-agent's result names: it goes on in its own "
                "conversation with this prompt.",
            },
            "run_in_background": {
                "default": False,
                "description": "Start it and return its agent_id at once; read its report later with TaskOutput.",
                "type": "boolean",
            },
        },
        "required": ["description", "prompt"],
        "type": "object",
    }
    assert param["description"].startswith("Start a sub-agent for a self-contained piece of work")


def test_a_projects_agent_gets_exactly_its_tools_its_prompt_and_its_model(harness: HarnessFactory) -> None:
    from jupyter_agent.builtin_tools.workflow import AgentType

    reviewer = AgentType(
        name="reviewer",
        description="Reviews a change",
        tools=("Read", "Grep", "Bash"),  # Bash is not in the parent's pool: it is not invented
        prompt="You are a careful code reviewer.",
        model="claude-haiku-5-5",
    )

    def script(body: dict[str, Any], index: int) -> Turn:
        if _is_subagent(body):
            return Turn(blocks=[Text("No bugs found.")])
        if index == 0:
            task = {"description": "Review", "prompt": "Review loader.py.", "subagent_type": "reviewer"}
            return Turn(blocks=[ToolUse(name="Task", input=task, id="toolu_task")])
        return Turn(blocks=[Text("Reviewed.")])

    tools = [*file_tools(), *(t for t in workflow_tools() if t.name != "Task"), TaskTool([reviewer])]
    h = harness(script, tools=tools)
    assert h.run("review it").reason == "end_turn"
    body = h.server.requests[1]
    assert _tool_names(body) == {"Read", "Grep"}
    assert body["model"] == "claude-haiku-5-5"
    # a type registered in code keeps its instructions in the system prompt (a project's file would be data)
    assert body["system"][0]["text"].startswith("You are a careful code reviewer.\n\nYou are a sub-agent")
    assert h.server.requests[0]["model"] == h.server.requests[2]["model"] != "claude-haiku-5-5"
    assert _report(tool_results(h.server.requests[2])[0]) == "No bugs found."


def test_a_projects_agent_definition_file_reaches_its_subagent_as_a_read_result(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    from jupyter_agent.builtin_tools.workflow import AgentType

    definition = tmp_path / ".claude" / "agents" / "reviewer.md"
    reviewer = AgentType(
        name="reviewer", description="Reviews", prompt="You review code.", source=str(definition)
    )

    def script(body: dict[str, Any], index: int) -> Turn:
        if _is_subagent(body):
            return Turn(blocks=[Text("No bugs.")])
        if index == 0:
            task = {"description": "Review", "prompt": "Review it.", "subagent_type": "reviewer"}
            return Turn(blocks=[ToolUse(name="Task", input=task, id="toolu_task")])
        return Turn(blocks=[Text("Reviewed.")])

    h = harness(script, tools=[*file_tools(), TaskTool([reviewer])])
    assert h.run("review").reason == "end_turn"
    body = h.server.requests[1]
    assert "You review code." not in body["system"][0]["text"]
    _note, calls, results, _close, task = body["messages"]
    assert texts(task) == ["Review it."]
    assert [b["input"] for b in calls["content"]] == [{"file_path": str(definition)}]
    assert results["content"][0]["content"] == [{"type": "text", "text": "You review code."}]


def test_an_unknown_agent_type_is_refused_with_the_types_there_are(harness: HarnessFactory) -> None:
    from jupyter_agent.builtin_tools.workflow import AgentType

    def script(body: dict[str, Any], index: int) -> Turn:
        if index == 0:
            task = {"description": "Review", "prompt": "x", "subagent_type": "nobody"}
            return Turn(blocks=[ToolUse(name="Task", input=task, id="toolu_task")])
        return Turn(blocks=[Text("ok")])

    tools = [*file_tools(), TaskTool([AgentType(name="reviewer", description="Reviews")])]
    h = harness(script, tools=tools)
    h.run("go")
    (block,) = tool_results(h.server.requests[1])
    assert (
        "Fix: set `subagent_type` to one of 'Explore', 'general-purpose', 'Plan' or 'reviewer'"
        in result_text(block)
    )


def test_a_skill_a_subagent_loads_narrows_the_subagent_not_the_parent(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    from jupyter_agent.builtin_tools.skill import Skill, SkillTool

    (tmp_path / "skills" / "look").mkdir(parents=True)
    (tmp_path / "skills" / "look" / "SKILL.md").write_text("---\ndescription: Look\n---\nOnly look.\n")
    skill = Skill(
        name="look", description="Look", directory=tmp_path / "skills" / "look", allowed_tools=("Read",)
    )

    def script(body: dict[str, Any], index: int) -> Turn:
        if _is_subagent(body):
            if len(body["messages"]) == 1:
                return Turn(blocks=[ToolUse(name="Skill", input={"skill": "look"})])
            if len(body["messages"]) == 3:
                write = {"file_path": "sub.txt", "content": "x"}
                return Turn(blocks=[ToolUse(name="Write", input=write, id="toolu_sub_write")])
            return Turn(blocks=[Text("looked")])
        if index == 0:
            task = {"description": "Look", "prompt": "look", "subagent_type": "general-purpose"}
            return Turn(blocks=[ToolUse(name="Task", input=task, id="toolu_task")])
        if any(b.get("tool_use_id") == "toolu_task" for b in body["messages"][-1]["content"]):
            return Turn(blocks=[ToolUse(name="Write", input={"file_path": "out.txt", "content": "x"})])
        return Turn(blocks=[Text("done")])

    h = harness(script, tools=[*PARENT_TOOLS, SkillTool([skill])], mode="bypassPermissions")
    h.run("go")
    refused = next(e for e in h.of(ToolFinished) if e.call_id == "toolu_sub_write")
    assert "outside the allowed-tools of the skill 'look' (Read)" in refused.result.content
    assert not (tmp_path / "sub.txt").exists()
    assert (tmp_path / "out.txt").read_text() == "x"  # the parent is not narrowed
    assert h.session.policy.scope is None
