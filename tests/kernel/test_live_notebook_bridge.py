"""The notebook bridge in a real ipykernel: a worker thread edits the live notebook while a cell is busy.

The cell starts a worker that uses the live backend, and pumps shell messages on the main thread with
`ShellPump` (as `%%agent` does) until the worker is done; the jupyter_client frontend answers the comm like
the labextension would. This proves the round trip works while the main thread is blocked in a cell.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from frontend import KernelFrontend, outcome_of
from notebook_page import NotebookPage

pytestmark = pytest.mark.kernel

ROOT = Path(__file__).resolve().parents[2]

WORKER_CELL = """
import asyncio, json, threading
from pathlib import Path
from jupyter_agent.notebook.bridge import LiveBridge
from jupyter_agent.notebook.ops import NotebookError, Replace, raise_for
from jupyter_agent.notebook.provider import NotebookProvider
from jupyter_agent.ui.pump import ShellPump

from jupyter_agent.notebook.frontend import KernelSignals

# As the host builds it: the run's signals (on the main thread) go with the provider.
signals = KernelSignals.read(user_ns=get_ipython().user_ns, in_kernel=True)
bridge = LiveBridge(notebook_path=str(Path("analysis.ipynb").resolve()), hello_timeout={hello_timeout})
provider = NotebookProvider(default_path=Path("analysis.ipynb"), bridge=bridge, signals=signals)
outcome = {{}}

async def scenario():
    access = await provider.open_for_write(None)
    outcome["decision"] = access.decision.kind
    if access.decision.kind != "live":
        return
    book = access.book
    inserted = await book.insert("a1", "code", "b = 2")
    outcome["inserted"] = inserted.id
    try:
        (result,) = await book.apply([Replace(id="a1", source="a = 9", expect="what the agent read long ago")])
        raise_for(result)
    except NotebookError as exc:
        outcome["stale"] = [exc.code, exc.current]
    outcome["cells"] = [[c.id, c.source] for c in await book.cells()]
    outcome["worker_thread"] = threading.current_thread().name

def worker():
    try:
        asyncio.run(scenario())
    except BaseException as exc:
        outcome["error"] = repr(exc)

thread = threading.Thread(target=worker, name="agent-worker")
thread.start()
pump = ShellPump.for_kernel(get_ipython().kernel)
while thread.is_alive():
    pump.pump(0.05)
pump.finish()
print("OUTCOME " + json.dumps(outcome))
"""


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[KernelFrontend]:
    env = {"PYTHONPATH": str(ROOT), "JPY_SESSION_NAME": str(tmp_path / "analysis.ipynb")}
    frontend = KernelFrontend(tmp_path, env=env)
    yield frontend
    frontend.close()


def write_disk_copy(tmp_path: Path) -> bytes:
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    cell = new_code_cell("a = 1")
    cell.id = "a1"
    data = (nbformat.writes(new_notebook(cells=[cell])) + "\n").encode()
    (tmp_path / "analysis.ipynb").write_bytes(data)
    return data


def test_a_worker_edits_the_live_notebook_while_the_cell_is_busy(
    kernel: KernelFrontend, tmp_path: Path
) -> None:
    on_disk = write_disk_copy(tmp_path)
    page = NotebookPage(kernel)
    cell = kernel.run(WORKER_CELL.format(hello_timeout=5.0), timeout=60)
    outcome = outcome_of(cell.text())
    assert "error" not in outcome, outcome
    assert outcome["decision"] == "live"
    assert outcome["stale"] == ["STALE_READ", "a = 1"]
    assert outcome["cells"] == [["a1", "a = 1"], [outcome["inserted"], "b = 2"]]
    assert [c["source"] for c in page.cells] == ["a = 1", "b = 2"]
    assert page.requests == 3 and len(page.comm_ids) == 1
    assert (tmp_path / "analysis.ipynb").read_bytes() == on_disk  # the open notebook's file is never written


def test_without_a_page_the_kernels_notebook_is_not_written_but_proposed(
    kernel: KernelFrontend, tmp_path: Path
) -> None:
    """No page answered, but a frontend sent the cell: it may hold the notebook, so its file is left alone."""
    on_disk = write_disk_copy(tmp_path)
    cell = kernel.run(WORKER_CELL.format(hello_timeout=0.5), timeout=60)
    outcome = outcome_of(cell.text())
    assert "error" not in outcome, outcome
    assert outcome["decision"] == "proposal"
    assert (tmp_path / "analysis.ipynb").read_bytes() == on_disk


RUN_CELL = """
import asyncio, json, threading
from pathlib import Path
from jupyter_agent.notebook.bridge import LiveBridge
from jupyter_agent.notebook.provider import NotebookProvider
from jupyter_agent.tools import Sandbox, ToolContext
from jupyter_agent.builtin_tools.notebook import RunCell
from jupyter_agent.tools.context import ToolServices
from jupyter_agent.ui.channel import CallOnMain, UIChannel
from jupyter_agent.ui.pump import ShellPump

channel = UIChannel()
from jupyter_agent.notebook.frontend import KernelSignals

bridge = LiveBridge(notebook_path=str(Path("analysis.ipynb").resolve()))
signals = KernelSignals.read(user_ns=get_ipython().user_ns, in_kernel=True)
ctx = ToolContext(
    sandbox=Sandbox.at("."),
    namespace=get_ipython().user_ns,
    services=ToolServices(
        notebooks=NotebookProvider(default_path=Path("analysis.ipynb"), bridge=bridge, signals=signals),
        main_thread=channel,
        shell=get_ipython(),
    ),
)
outcome = {}

def worker():
    try:
        result = asyncio.run(RunCell().run(RunCell.Input(cell_id="a1"), ctx))
        outcome["content"] = result.content
        outcome["images"] = len(result.images)
    except BaseException as exc:
        outcome["error"] = repr(exc)

thread = threading.Thread(target=worker, name="agent-worker")
thread.start()
pump = ShellPump.for_kernel(get_ipython().kernel)
while thread.is_alive():
    for item in channel.drain():
        if isinstance(item, CallOnMain):
            outcome["ran_on"] = threading.current_thread().name
            item.reply.set_result(item.fn())
    pump.pump(0.02)
pump.finish()
print("OUTCOME " + json.dumps(outcome))
"""


def test_run_cell_runs_on_the_main_thread_and_writes_outputs_into_the_live_cell(
    kernel: KernelFrontend,
) -> None:
    page = NotebookPage(kernel)
    page.cells[0]["source"] = (
        "from IPython.display import HTML, display\n"
        "print('hello')\n"
        "display(HTML('<b>bold</b>'))\n"
        "answer = 6 * 7\n"
        "answer"
    )
    cell = kernel.run(RUN_CELL, timeout=60)
    outcome = outcome_of(cell.text())
    assert "error" not in outcome, outcome
    assert outcome["ran_on"] == "MainThread"
    assert outcome["content"].startswith("hello\n")
    assert "Out: 42" in outcome["content"]
    outputs = page.cells[0]["outputs"]
    assert [o["output_type"] for o in outputs] == ["stream", "display_data", "execute_result"]
    assert outputs[1]["data"]["text/html"] == "<b>bold</b>"
    assert outputs[2]["data"]["text/plain"] == "42"
    assert outputs[2]["execution_count"] == page.cells[0]["execution_count"] is not None
    assert kernel.run("print(answer)").text().strip() == "42"


def test_an_agent_run_reads_and_edits_the_live_notebook_after_approval(
    agent_kernel: Any, tmp_path: Path
) -> None:
    from jupyter_agent.testing import Text, ToolUse, Turn

    on_disk = write_disk_copy(tmp_path)
    script = [
        Turn(blocks=[ToolUse(name="NotebookRead", input={})]),
        Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "a1", "new_source": "a = 2"})]),
        Turn(blocks=[Text("Changed a to 2.")]),
    ]
    frontend, server = agent_kernel(script)
    page = NotebookPage(frontend)
    cell = frontend.execute("%%agent\nset a to 2")
    frontend.click("Allow once")
    frontend.wait(lambda: cell.done, 60, "the agent cell")
    assert [c["source"] for c in page.cells] == ["a = 2"]
    results = [
        block
        for request in server.requests[1:]
        for block in request["messages"][-1]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    texts = [
        "".join(part["text"] for part in block["content"] if part["type"] == "text") for block in results
    ]
    assert texts[0].startswith("Notebook 'analysis.ipynb' (open in JupyterLab, 1 cell):")
    assert (
        texts[1] == "Edited cell 'a1' in analysis.ipynb (+1 −1)."
    )  # the live page is said once, in the tool
    assert (tmp_path / "analysis.ipynb").read_bytes() == on_disk
