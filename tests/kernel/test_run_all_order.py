"""Cells queued behind a running `%%agent` cell keep notebook order, and the kernel looks busy until it ends.

A real ipykernel over ZMQ (see frontend.py). Run All sends every execute_request at once: some reach the
kernel's own reader before the agent cell blocks, the rest are held by the pump while the agent waits for
an approval. Both kinds must run after the agent cell in the order they were sent, none dropped, and
completion/inspection requests sent among them must all be answered.
"""

from __future__ import annotations

from importlib.metadata import version

import pytest
from frontend import AgentKernel, Execution, KernelFrontend
from packaging.version import Version

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

CELLS = 12
#: Run All's race is timing dependent: repeat it so an intermittent reorder shows up.
REPEATS = 6


def write_then_answer() -> list[Turn]:
    return [
        Turn(
            blocks=[
                Text("Writing."),
                ToolUse(name="Write", input={"file_path": "notes.md", "content": "n\n"}),
            ]
        ),
        Turn(blocks=[Text("Done.")]),
    ]


def append_cell(n: int) -> str:
    return f"with open('order.txt', 'a') as f:\n    f.write('{n}\\n')"


def queue_cells(frontend: KernelFrontend) -> tuple[list[Execution], list[str]]:
    """Queue the dependent cells with completion and inspection requests among them, as a busy user would."""
    cells: list[Execution] = []
    others: list[str] = []
    for n in range(1, CELLS + 1):
        cells.append(frontend.execute(append_cell(n)))
        if n % 4 == 0:
            others.append(frontend.kc.complete("import pathl"))
            others.append(frontend.kc.inspect("len"))
    return cells, others


def assert_ran_in_order(
    frontend: KernelFrontend, agent: Execution, cells: list[Execution], others: list[str]
) -> None:
    frontend.wait(lambda: all(c.done for c in cells), 90, "the queued cells")
    frontend.wait(lambda: all(m in frontend.replies for m in others), 30, "completion and inspection replies")
    assert agent.reply is not None and agent.reply["status"] == "ok"
    assert [c.reply["status"] for c in cells if c.reply] == ["ok"] * CELLS  # none aborted or dropped
    order = (frontend.cwd / "order.txt").read_text().split()
    assert order == [str(n) for n in range(1, CELLS + 1)]
    counts = [agent.reply["execution_count"]] + [c.reply["execution_count"] for c in cells if c.reply]
    assert counts == sorted(counts) and len(set(counts)) == len(counts), counts
    assert all(frontend.replies[m]["content"]["status"] == "ok" for m in others)


@pytest.mark.parametrize("repeat", range(REPEATS))
@pytest.mark.parametrize("mode", ["approval", "acceptEdits"])
def test_run_all_runs_a_dozen_cells_behind_the_agent_in_notebook_order(
    agent_kernel: AgentKernel, mode: str, repeat: int
) -> None:
    frontend, _ = agent_kernel(write_then_answer())
    flags = " --mode acceptEdits" if mode == "acceptEdits" else ""
    agent = frontend.execute(f"%%agent{flags}\nwrite notes")
    cells, others = queue_cells(frontend)  # at once, like Run All
    if mode == "approval":
        frontend.click("Allow once")
    assert_ran_in_order(frontend, agent, cells, others)


def test_cells_queued_while_an_approval_is_pending_run_in_order_after_the_click(
    agent_kernel: AgentKernel,
) -> None:
    frontend, _ = agent_kernel(write_then_answer())
    agent = frontend.execute("%%agent\nwrite notes")
    frontend.wait(lambda: bool(frontend.buttons("Allow once")), 30, "the approval")
    cells, others = queue_cells(frontend)  # all held by the waiting cell, then handed back after the click
    frontend.click("Allow once")
    assert_ran_in_order(frontend, agent, cells, others)


def statuses(frontend: KernelFrontend) -> list[tuple[str, str, str]]:
    """(execution_state, parent msg_id, parent msg_type) of every status message so far, in order."""
    return [
        (
            m["content"]["execution_state"],
            m["parent_header"].get("msg_id", ""),
            m["parent_header"].get("msg_type", ""),
        )
        for m in frontend.iopub_log
        if m["msg_type"] == "status"
    ]


def test_the_kernel_reports_busy_while_the_agent_waits_for_an_approval(agent_kernel: AgentKernel) -> None:
    frontend, _ = agent_kernel(write_then_answer())
    agent = frontend.execute("%%agent\nwrite notes")
    frontend.wait(
        lambda: any("Tell the agent" in w.state.get("placeholder", "") for w in frontend.widgets.values()),
        30,
        "the approval's message box",
    )
    # Widget traffic while the cell waits (typing in the message box): each comm message gets its busy/idle pair,
    # which ipywidgets needs, and then the kernel must say busy again — a frontend shows the last status it saw.
    frontend.set_text("Tell the agent", "typing")
    frontend.wait(
        lambda: any(s[2] == "comm_msg" and s[0] == "idle" for s in statuses(frontend)),
        30,
        "the comm message's idle",
    )
    frontend.wait(
        lambda: statuses(frontend)[-1] == ("busy", agent.msg_id, "execute_request"), 30, "busy again"
    )
    comm_states = [s[0] for s in statuses(frontend) if s[2] == "comm_msg"]
    assert comm_states.count("busy") == comm_states.count("idle") >= 1
    frontend.click("Allow once")
    frontend.wait(lambda: agent.done, 60, "the agent cell")
    during = statuses(frontend)
    last_comm = max(i for i, s in enumerate(during) if s[2] == "comm_msg")
    after_comms = [s for s in during[last_comm + 1 :] if s[1] == agent.msg_id]
    assert after_comms[0][0] == "busy" and after_comms[-1][0] == "idle"
    assert [s for s in during if s[1] == agent.msg_id and s[0] == "idle"] == [after_comms[-1]]


def test_background_thread_output_after_a_click_goes_to_the_running_cell(agent_kernel: AgentKernel) -> None:
    script = [
        Turn(blocks=[ToolUse(name="RunCode", input={"code": "go.set(); worker.join(30)"})]),
        Turn(blocks=[Text("released")]),
    ]
    frontend, _ = agent_kernel(script)
    starter = frontend.run(
        "import sys, threading\n"
        "go, out = threading.Event(), sys.stdout\n"
        "def report():\n"
        "    go.wait(60)\n"
        "    out.write('progress from the background thread\\n'); out.flush()\n"
        "worker = threading.Thread(target=report, daemon=True); worker.start()"
    )
    agent = frontend.execute("%%agent\nrelease the worker")
    frontend.click("Allow once")  # the click is a comm message dispatched inside the waiting cell
    frontend.wait(lambda: agent.done, 60, "the agent cell")
    reports = [
        m["parent_header"].get("msg_id")
        for m in frontend.iopub_log
        if m["msg_type"] == "stream" and "background thread" in m["content"]["text"]
    ]
    # Never the click's: ipykernel 7.1+ sends a thread's output to the running cell; 7.0 to the cell that
    # started the thread (its own rule, which the pump leaves alone).
    follows_its_starter = Version(version("ipykernel")) < Version("7.1")
    assert reports == [starter.msg_id if follows_its_starter else agent.msg_id]
