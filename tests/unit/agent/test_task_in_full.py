"""Task in full: a finished sub-agent resumed by its agent_id in a later run (its earlier conversation sent
again), a per-call model (the newest of its family, never on an endpoint's own model names), max_turns, the
Plan type; EnterPlanMode asks the user and switches the run to plan mode."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_testkit import Harness, HarnessFactory, assert_valid_request, result_text, texts, tool_results

from jupyter_agent.agent.models import MODELS, family_model
from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.builtin_tools.workflow import EnterPlanMode, workflow_tools
from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.tools import ApprovalRequest, Approve, Reject
from jupyter_agent.tools.scope import ModeSwitched

PARENT_TOOLS = [*file_tools(), *workflow_tools()]


def _is_subagent(body: dict[str, Any]) -> bool:
    return "You are a sub-agent" in body["system"][0]["text"]


def _task(call_id: str = "toolu_t", **extra: Any) -> ToolUse:
    return ToolUse(
        name="Task", input={"description": "Look", "prompt": "Find the loader.", **extra}, id=call_id
    )


def _parent_turns(task: ToolUse) -> Callable[[dict[str, Any], int], Turn]:
    def script(body: dict[str, Any], index: int) -> Turn:
        if _is_subagent(body):
            said = sum(1 for m in body["messages"] if m["role"] == "assistant")
            return Turn(blocks=[Text(f"sub-agent answer {said + 1}")])
        if body["messages"][-1]["role"] == "user" and not tool_results(body):
            return Turn(blocks=[task])
        return Turn(blocks=[Text("ok")])

    return script


def test_a_finished_subagent_is_resumed_by_its_id_in_a_later_run_with_its_conversation(
    harness: HarnessFactory,
) -> None:
    first_task = _task()
    resumed_task = _task("toolu_t2", prompt="And where is it called?", resume="agent_1")
    tasks = iter([first_task, resumed_task])
    current: list[ToolUse] = []

    def script(body: dict[str, Any], index: int) -> Turn:
        if not _is_subagent(body) and body["messages"][-1]["role"] == "user" and not tool_results(body):
            current[:] = [next(tasks)]
        return _parent_turns(current[0])(body, index)

    h = harness(script, tools=PARENT_TOOLS)
    assert h.run("find the loader").reason == "end_turn", h.events
    first = result_text(tool_results(h.server.requests[-1])[0])
    assert first.startswith("sub-agent answer 1") and "agent_id: agent_1" in first
    assert h.run("and its callers?").reason == "end_turn", [
        e for e in h.events if "Error" in type(e).__name__
    ]
    resumed = [b for b in h.server.requests if _is_subagent(b)][-1]
    assert_valid_request(resumed)  # the strict server took it: the earlier sub-conversation, whole
    said = [t for m in resumed["messages"] for t in texts(m)]
    assert said[-3:] == ["Find the loader.", "sub-agent answer 1", "And where is it called?"]
    second = result_text(tool_results(h.server.requests[-1])[0])
    assert second.startswith("sub-agent answer 2") and "agent_id: agent_1" in second  # the same id


def test_resuming_an_unknown_id_is_refused_with_the_ids_there_are(harness: HarnessFactory) -> None:
    h = harness(_parent_turns(_task(resume="agent_7")), tools=PARENT_TOOLS)
    h.run("go on")
    text = result_text(tool_results(h.server.requests[-1])[0])
    assert "Task: no finished sub-agent 'agent_7' to resume (finished: none yet)" in text
    assert not any(_is_subagent(b) for b in h.server.requests)


def test_a_per_call_model_runs_the_newest_of_its_family_and_counts_in_the_run(
    harness: HarnessFactory,
) -> None:
    h = harness(_parent_turns(_task(model="haiku")), tools=PARENT_TOOLS)
    finished = h.run("look")
    [sub] = [b for b in h.server.requests if _is_subagent(b)]
    newest_haiku = next(name for name in MODELS if "haiku" in name)
    assert sub["model"] == newest_haiku != h.server.requests[0]["model"]
    assert finished.reason == "end_turn"


def test_a_model_family_is_not_chosen_when_the_session_names_models_the_endpoints_way() -> None:
    """Bedrock's and Vertex's ids (and a proxy's name) are not the API's: a family name would miss them (the
    Task call is then refused, naming the session's model; the scripted server knows only the API's names)."""
    for endpoint_name in (
        "claude-sonnet-4-5@20250929",
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        "my-proxy",
    ):
        assert family_model("opus", endpoint_name) is None
    assert family_model("opus", "claude-sonnet-4-5") == next(name for name in MODELS if "opus" in name)


def test_max_turns_stops_the_subagent_and_says_so(harness: HarnessFactory, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")

    def script(body: dict[str, Any], index: int) -> Turn:
        if _is_subagent(body):
            return Turn(blocks=[ToolUse(name="Read", input={"file_path": "a.py"})])  # never done by itself
        return _parent_turns(_task(max_turns=2))(body, index)

    h = harness(script, tools=PARENT_TOOLS)
    h.run("look")
    assert sum(1 for b in h.server.requests if _is_subagent(b)) == 2
    text = result_text(tool_results(h.server.requests[-1])[0])
    assert "stopped before it finished (reached max_turns)" in text


def test_the_plan_type_reads_only_and_is_told_to_return_a_plan(harness: HarnessFactory) -> None:
    h = harness(_parent_turns(_task(subagent_type="Plan")), tools=PARENT_TOOLS)
    h.run("plan it")
    [sub] = [b for b in h.server.requests if _is_subagent(b)]
    assert {t["name"] for t in sub["tools"]} == {"Read", "Glob", "Grep"}
    assert "Your report is a plan for the agent that called you" in sub["system"][0]["text"]


def _enter_then_write(body: dict[str, Any], index: int) -> Turn:
    if index == 0:
        return Turn(blocks=[ToolUse(name="EnterPlanMode", id="toolu_enter")])
    if index == 1:
        return Turn(
            blocks=[ToolUse(name="Write", input={"file_path": "x.txt", "content": "x"}, id="toolu_w")]
        )
    return Turn(blocks=[Text("planned")])


def test_enter_plan_mode_asks_the_user_and_switches_the_run(harness: HarnessFactory, tmp_path: Path) -> None:
    asked: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> Approve:
        asked.append(request)
        return Approve()

    h = harness(_enter_then_write, tools=[*PARENT_TOOLS], mode="default")
    h.run("refactor everything", approver=approve)
    assert [r.tool for r in asked] == [EnterPlanMode.name]  # asked once; the Write is refused, not asked
    entered = result_text(tool_results(h.server.requests[1])[0])
    assert entered.startswith(
        "The user switched to plan mode. The mode is now plan: only read-only tools run"
    )
    write = tool_results(h.server.requests[2])[0]
    assert write["is_error"] and "not available in plan mode" in result_text(write)
    assert not (tmp_path / "x.txt").exists()
    assert h.session.take_changes() == (ModeSwitched("plan"),)  # the host keeps it for later runs


def test_enter_plan_mode_declined_or_headless_changes_nothing(harness: HarnessFactory) -> None:
    async def decline(request: ApprovalRequest) -> Reject:
        return Reject()

    h = harness(
        [Turn(blocks=[ToolUse(name="EnterPlanMode")]), Turn(blocks=[Text("fine")])], tools=PARENT_TOOLS
    )
    h.run("refactor", approver=decline)
    assert tool_results(h.server.requests[1])[0]["is_error"]
    assert h.session.take_changes() == ()
    headless = harness(
        [Turn(blocks=[ToolUse(name="EnterPlanMode")]), Turn(blocks=[Text("fine")])], tools=PARENT_TOOLS
    )
    headless.run("refactor")  # refuse_all: nobody to ask
    text = result_text(tool_results(headless.server.requests[1])[0])
    assert "no one is there to approve EnterPlanMode" in text and "%agent allow EnterPlanMode" in text
    assert headless.session.take_changes() == ()


def _parent_last(h: Harness) -> dict[str, Any]:
    """The parent's last request (a background sub-agent's requests come in between, at their own times)."""
    return [b for b in h.server.requests if not _is_subagent(b)][-1]


def _background_script(
    release: threading.Event, calls: list[ToolUse]
) -> Callable[[dict[str, Any], int], Turn]:
    """The parent calls `calls` one a run; the sub-agent answers only once `release` is set."""
    pending = iter(calls)

    def script(body: dict[str, Any], index: int) -> Turn:
        if _is_subagent(body):
            release.wait(20)
            return Turn(blocks=[Text("background report: 3 loaders")])
        if body["messages"][-1]["role"] == "user" and not tool_results(body):
            return Turn(blocks=[next(pending)])
        return Turn(blocks=[Text("ok")])

    return script


def test_a_background_task_returns_at_once_and_its_report_is_read_with_task_output_in_a_later_run(
    harness: HarnessFactory,
) -> None:
    release = threading.Event()
    calls = [
        _task("toolu_bg", run_in_background=True),
        ToolUse(name="TaskOutput", input={"task_id": "agent_1"}, id="toolu_out"),
    ]
    h = harness(_background_script(release, calls), tools=PARENT_TOOLS)
    try:
        assert h.run("start the search").reason == "end_turn"  # the sub-agent has not answered yet
        started = result_text(tool_results(_parent_last(h))[0])
        assert started.startswith("Started sub-agent agent_1 in the background for 'Look'")
    finally:
        release.set()
    assert h.run("what did it find?").reason == "end_turn"
    report = result_text(tool_results(_parent_last(h))[0])
    assert report.startswith("background report: 3 loaders") and "agent_id: agent_1" in report


def test_task_stop_stops_a_background_subagent_and_task_output_then_says_so(harness: HarnessFactory) -> None:
    release = threading.Event()
    calls = [
        _task("toolu_bg", run_in_background=True),
        ToolUse(name="TaskStop", input={"task_id": "agent_1"}, id="toolu_stop"),
        ToolUse(name="TaskOutput", input={"task_id": "agent_1", "block": False}, id="toolu_out"),
        ToolUse(name="TaskOutput", input={"task_id": "agent_9"}, id="toolu_bad"),
    ]
    h = harness(_background_script(release, calls), tools=PARENT_TOOLS)
    try:
        h.run("start it")
        h.run("stop it")
        stopped = result_text(tool_results(_parent_last(h))[0])
        assert stopped.startswith("Stopped sub-agent agent_1 ('Look').")
        assert "stopped before it finished (interrupted)" in stopped
    finally:
        release.set()
    h.run("read it")
    assert "stopped before it finished (interrupted)" in result_text(tool_results(_parent_last(h))[0])
    h.run("read another")
    bad = result_text(tool_results(_parent_last(h))[0])
    assert "TaskOutput: no background sub-agent 'agent_9' (background sub-agents: agent_1)" in bad
