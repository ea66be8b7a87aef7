"""`ShellPump` in a real ipykernel, driven directly from a cell: what `pump()` reports and what it holds.

A cell pumps while the frontend opens a comm, sends it messages and queues two cells among them. The comm
messages run inside the pumping cell (its handler sees them at once), the cells are held and run after it,
in the order they were sent, and `pump()` counts exactly the comm messages it ran. A `pump(timeout)` call
waits for the next message rather than returning at once (a waiting agent cell must not spin a core).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from frontend import KernelFrontend, new_id, outcome_of

pytestmark = pytest.mark.kernel

ROOT = Path(__file__).resolve().parents[2]

COMM_TARGET = """
import comm
received = []

def opened(channel, msg):
    received.append("open")
    channel.on_msg(lambda m: received.append(m["content"]["data"]["n"]))

comm.get_comm_manager().register_target("pump-count", opened)
"""

PUMP_CELL = """
import json, sys, time
from jupyter_agent.ui.pump import ShellPump

pump = ShellPump.for_kernel(get_ipython().kernel)
print("PUMPING"); sys.stdout.flush()
returns = [pump.pump(60)]  # waits for the frontend's first message, however long it takes
deadline = time.monotonic() + 30
while len(received) < 4 and time.monotonic() < deadline:
    returns.append(pump.pump(0.05))
outcome = {"received": list(received), "first": returns[0], "handled": sum(returns)}
outcome["after"] = pump.pump(0.05)  # nothing more was sent
outcome["dispatched"] = pump.dispatched
outcome["held"] = len(pump.deferred)
pump.finish()
print("OUTCOME " + json.dumps(outcome))
"""


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[KernelFrontend]:
    frontend = KernelFrontend(tmp_path, env={"PYTHONPATH": str(ROOT)})
    yield frontend
    frontend.close()


def test_pump_runs_comm_messages_at_once_counts_them_and_holds_cells_for_after_the_cell(
    kernel: KernelFrontend,
) -> None:
    kernel.run(COMM_TARGET)
    pumping = kernel.execute(PUMP_CELL)
    kernel.wait(lambda: "PUMPING" in pumping.text(), 30, "the cell to start pumping")
    comm_id = new_id()
    kernel.kc.shell_channel.send(
        kernel.kc.session.msg("comm_open", {"comm_id": comm_id, "target_name": "pump-count", "data": {}})
    )
    first = kernel.execute("order = ['first']")
    kernel.send_comm(comm_id, {"n": 1})
    second = kernel.execute("order.append('second')")
    kernel.send_comm(comm_id, {"n": 2})
    kernel.send_comm(comm_id, {"n": 3})
    kernel.wait(
        lambda: pumping.done and first.done and second.done, 60, "the pumping cell and the held cells"
    )
    outcome = outcome_of(pumping.text())
    assert outcome["received"] == ["open", 1, 2, 3]  # handled inside the cell, in the order sent
    assert outcome["first"] >= 1  # the first call waited for a message instead of returning empty-handed
    assert outcome["handled"] == outcome["dispatched"] == 4
    assert outcome["after"] == 0
    assert outcome["held"] == 2
    counts = [c.reply["execution_count"] for c in (pumping, first, second) if c.reply]
    assert counts == sorted(counts) and len(set(counts)) == 3
    assert kernel.run("print(order)").text().strip() == "['first', 'second']"
