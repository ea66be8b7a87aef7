""" "Allow all edits in this run" (asked at a pending cell or in the approval widget): the call runs, and the rest
of the run's edits run as acceptEdits would run them — execution still asks, ask rules and protected paths still
ask, and the next run (a new Dispatcher) asks again. A refusal because the user changed the cell meanwhile comes
back to the model as STALE_READ, not DENIED."""

from __future__ import annotations

from pathlib import Path

from dispatch_harness import Approvals, ToolHarness

from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.builtin_tools.shell import bash_tool
from jupyter_agent.tools import Approve, Reject


def project(tmp_path: Path, person: Approvals, *, ask: tuple[str, ...] = ()) -> ToolHarness:
    (tmp_path / ".git").mkdir()
    return ToolHarness(tmp_path, [*file_tools(), bash_tool()], approver=person, ask=ask)


def test_the_rest_of_the_runs_edits_run_without_asking(tmp_path: Path) -> None:
    person = Approvals(Approve(edits_this_run=True), then=Reject(message="asked again"))
    tools = project(tmp_path, person)
    tools.ok("Write", file_path="a.txt", content="a\n")
    tools.ok("Write", file_path="b.txt", content="b\n")
    assert (tmp_path / "b.txt").read_text() == "b\n"
    assert [r.tool for r in person.requests] == ["Write"]  # asked once
    assert person.requests[0].kind == "edit"


def test_execution_ask_rules_and_protected_paths_still_ask(tmp_path: Path) -> None:
    person = Approvals(Approve(edits_this_run=True), then=Reject(message="no"))
    tools = project(tmp_path, person, ask=("Write(notes/**)",))
    tools.ok("Write", file_path="a.txt", content="a\n")
    assert tools.call("Bash", command="echo hi").error_code == "DENIED"
    assert tools.call("Write", file_path="notes/x.txt", content="x\n").error_code == "DENIED"
    assert tools.call("Write", file_path=".git/config", content="[core]\n").error_code == "DENIED"
    assert [r.tool for r in person.requests] == ["Write", "Bash", "Write", "Write"]
    assert not (tmp_path / "notes" / "x.txt").exists()


def test_the_next_run_asks_again(tmp_path: Path) -> None:
    person = Approvals(Approve(edits_this_run=True), then=Reject(message="no"))
    tools = project(tmp_path, person)
    tools.ok("Write", file_path="a.txt", content="a\n")
    next_run = tools.but()  # a new Dispatcher over the same session policy
    assert next_run.call("Write", file_path="b.txt", content="b\n").error_code == "DENIED"
    assert tools.policy.mode == "default" and tools.policy.allow == []  # nothing was added to the session


def test_a_refusal_because_the_cell_changed_reaches_the_model_as_stale_read(tmp_path: Path) -> None:
    person = Approvals(Reject(message="cell 'c1' changed while waiting", code="STALE_READ"))
    result = project(tmp_path, person).call("Write", file_path="a.txt", content="a\n")
    assert result.error_code == "STALE_READ"
    assert result.content == "STALE_READ: Write: cell 'c1' changed while waiting"
    assert not (tmp_path / "a.txt").exists()
