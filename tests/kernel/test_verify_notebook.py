"""VerifyNotebook and `%agent verify` in a real kernel: the notebook's cells run in a fresh, separate kernel.

What a user relies on: a notebook that only works because of state in the live kernel is caught (and the
cell and the name are named), the live kernel and the notebook file are left exactly as they were, a hung
cell is stopped by the per-cell timeout, `until_cell_id` checks a prefix, and Interrupt kills the fresh
kernel (and what it started) before the cell returns.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import nbformat
import pytest
from frontend import AgentKernel, KernelFrontend, outcome_of, result_text, tool_results

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel


def write_notebook(path: Path, cells: list[tuple[str, str]]) -> bytes:
    notebook = nbformat.v4.new_notebook()
    for cell_id, source in cells:
        cell = nbformat.v4.new_code_cell(source)
        cell.id = cell_id
        notebook.cells.append(cell)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)
    return path.read_bytes()


def verify_then_answer(**tool_input: Any) -> list[Turn]:
    return [Turn(blocks=[ToolUse(name="VerifyNotebook", input=tool_input)]), Turn(blocks=[Text("Checked.")])]


def verify_result(server_requests: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    (block,) = tool_results(server_requests[1])
    return block, result_text(block)


def live_state(frontend: KernelFrontend) -> dict[str, Any]:
    shown = frontend.run(
        "import json as _j\nprint('OUTCOME ' + _j.dumps({'b': globals().get('b'), 'a': 'a' in globals(), "
        "'count': get_ipython().execution_count, 'pid': __import__('os').getpid()}))"
    )
    return outcome_of(shown.text())


def test_a_notebook_that_needs_the_live_kernel_fails_at_the_cell_and_names_the_hidden_variable(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    notebook = tmp_path / "analysis.ipynb"  # the kernel's own notebook (JPY_SESSION_NAME); no page open
    before = write_notebook(
        notebook,
        [
            ("ca", "a = 1\nprint('a is', a)"),
            ("cg", "%%agent\nexplain a"),
            ("cb", "total = a + b\nprint(total)"),
            ("cc", "print('never reached')"),
        ],
    )
    frontend, server = agent_kernel(verify_then_answer())
    frontend.run("b = 41  # typed in the live kernel only")
    cell = frontend.run("%%agent --allow VerifyNotebook\ndoes it run from scratch?", timeout=120)
    assert cell.reply is not None and cell.reply["status"] == "ok", cell.text()
    block, text = verify_result(server.requests)
    assert block.get("is_error") is True
    first = text.splitlines()[0]
    assert first == (
        "NOTEBOOK_FAILS: analysis.ipynb fails at cell cb: NameError: name 'b' is not defined — defined only in "
        "your live kernel (set by In [2]: b = 41  # typed in the live kernel only)"
    )
    rows = {line.split()[1]: line.split()[2] for line in text.splitlines() if line[:4].strip().isdigit()}
    assert rows == {"ca": "ok", "cg": "skipped", "cb": "error", "cc": "not"}
    assert "----> 1 total = a + b" in text  # the traceback shows the failing source line
    assert "fails at cell cb" in cell.html()  # the open error card shows the report to the person
    state = live_state(frontend)
    assert state["b"] == 41 and state["a"] is False  # the fresh kernel's `a` never reached the live one
    assert notebook.read_bytes() == before


def test_a_clean_notebook_runs_clean_and_until_cell_id_stops_after_that_cell(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    write_notebook(
        tmp_path / "analysis.ipynb",
        [("c1", "x = 2"), ("c2", "%agent status\ny = x * 3\nprint(y)"), ("c3", "raise ValueError('below')")],
    )
    frontend, server = agent_kernel(verify_then_answer(until_cell_id="c2"))
    frontend.run("%%agent --allow VerifyNotebook\ncheck the first two cells", timeout=120)
    block, text = verify_result(server.requests)
    assert not block.get("is_error")
    assert text.startswith("analysis.ipynb runs clean up to cell c2 in ")
    assert "c3" not in text  # below until_cell_id: not run, not listed
    assert "2 of 2 code cells ran" in text


def test_a_hung_cell_is_stopped_by_the_per_cell_timeout_given_in_milliseconds(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    write_notebook(
        tmp_path / "analysis.ipynb",
        [("slow", "import time\ntime.sleep(120)"), ("after", "print('not reached')")],
    )
    frontend, server = agent_kernel(verify_then_answer(timeout=2000))  # milliseconds, as every tool takes
    frontend.run("%%agent --allow VerifyNotebook\ncheck it", timeout=120)
    _, text = verify_result(server.requests)
    assert text.splitlines()[0] == (
        "NOTEBOOK_FAILS: analysis.ipynb fails at cell slow: no result after 2 s (the per-cell timeout); "
        "the cell was stopped"
    )
    assert "after  not run" in text


def _process_gone(pid: int) -> bool:
    """No such process, or only its zombie entry left (it is dead)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


def test_interrupt_kills_the_fresh_kernel_and_what_it_started_before_the_cell_returns(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    pids = tmp_path / "pids.json"
    write_notebook(
        tmp_path / "analysis.ipynb",
        [
            (
                "spin",
                "import json, os, subprocess\n"
                "child = subprocess.Popen(['sleep', '300'])\n"
                f"open({str(pids)!r}, 'w').write(json.dumps([os.getpid(), child.pid]))\n"
                "import time\ntime.sleep(300)",
            )
        ],
    )
    frontend, server = agent_kernel([*verify_then_answer()[:1], Turn(blocks=[Text("Carrying on.")])])
    live_pid = live_state(frontend)["pid"]
    cell = frontend.execute("%%agent --allow VerifyNotebook\ncheck it")
    frontend.wait(lambda: pids.exists() and pids.stat().st_size > 0, 120, "the fresh kernel's cell to start")
    kernel_pid, child_pid = json.loads(pids.read_text())
    assert kernel_pid != live_pid
    frontend.km.interrupt_kernel()
    frontend.wait(lambda: cell.done, 60, "the interrupted agent cell")
    assert _process_gone(kernel_pid) and _process_gone(child_pid)
    assert cell.reply is not None and cell.reply["ename"] == "KeyboardInterrupt"
    follow = frontend.run("%%agent\ngo on", timeout=60)
    assert "Carrying on." in follow.text()
    (block,) = tool_results(server.requests[1])
    assert block["is_error"] and "INTERRUPTED" in result_text(block)


def test_agent_verify_reports_to_the_user_and_leaves_the_live_kernel_alone(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    other = tmp_path / "reports" / "q1.ipynb"
    other.parent.mkdir()
    (other.parent / "input.txt").write_text("42")
    before = write_notebook(other, [("r1", "print(open('input.txt').read())"), ("r2", "z = 1")])
    frontend, server = agent_kernel([])
    count = live_state(frontend)["count"]
    shown = frontend.run("%agent verify reports/q1.ipynb --timeout 60", timeout=120)
    assert shown.reply is not None and shown.reply["status"] == "ok", shown.text()
    text = shown.text()
    assert text.startswith("reports/q1.ipynb runs clean in ")
    assert (
        f"in {other.parent}" in text
    )  # another notebook runs in its own directory, as Jupyter would start it
    assert other.read_bytes() == before
    assert live_state(frontend)["count"] == count + 2  # the verify cell and this one: nothing else ran here
    assert server.requests == []  # the user's own check never calls the model
    bad = frontend.run("%agent verify --timeout soon")
    assert bad.reply is not None and bad.reply["status"] == "error"
    assert "--timeout takes whole seconds from 1 to 3600, not 'soon'" in bad.text()
    missing = frontend.run("%agent verify reports/q1.ipynb --until nope")
    assert "%agent verify: CELL_NOT_FOUND: no cell with id 'nope' in reports/q1.ipynb" in missing.text()


def test_the_fresh_kernel_gets_the_start_up_environment_not_variables_set_since(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    write_notebook(
        tmp_path / "analysis.ipynb",
        [
            (
                "env",
                "import os\nprint('STARTED', os.environ.get('STARTED_WITH'), os.environ.get('DEPLOY_TOKEN'))\n"
                "os.environ['SET_LATER']",
            )
        ],
    )
    frontend, _ = agent_kernel(
        [], env={"STARTED_WITH": "from-the-start", "DEPLOY_TOKEN": "tok-1234567890abcdef"}
    )
    frontend.run("import os\nos.environ['SET_LATER'] = 'typed-in-the-live-kernel'")
    text = frontend.run("%agent verify", timeout=120).text()
    assert "STARTED from-the-start [redacted: DEPLOY_TOKEN]" in text  # what it printed, masked
    assert "tok-1234567890abcdef" not in text
    assert (
        "fails at cell env: KeyError: 'SET_LATER' — SET_LATER is set only in your live kernel's environment"
        in text
    )
    assert os.environ.get("SET_LATER") is None  # (the test process itself never had it)


def test_a_token_the_user_popped_from_the_live_environment_is_masked_in_what_the_fresh_kernel_prints(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    token = "ghp_startedwith0123456789abcdefXYZ"
    write_notebook(
        tmp_path / "analysis.ipynb",
        [
            (
                "env",
                "import os\nprint('TOKEN', os.environ['GITHUB_TOKEN'])\nraise SystemError('show the output')",
            )
        ],
    )
    frontend, server = agent_kernel(verify_then_answer(), env={"GITHUB_TOKEN": token})
    frontend.run("import os\ngh = os.environ.pop('GITHUB_TOKEN')")
    cell = frontend.run("%%agent --allow VerifyNotebook\ndoes it run from scratch?", timeout=120)
    _, text = verify_result(server.requests)
    assert "TOKEN [redacted: GITHUB_TOKEN]" in text  # the fresh kernel got the start-up environment: masked
    assert token not in json.dumps(server.requests) and token[:12] not in json.dumps(server.requests)
    assert token not in cell.text() and token not in cell.html()


def test_the_running_notebook_is_verified_as_the_page_shows_it_unsaved_changes_included(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    from notebook_page import NotebookPage

    from jupyter_agent.notebook.cells import new_cell_json

    on_disk = write_notebook(tmp_path / "analysis.ipynb", [("a1", "a = 1")])  # saved before the edit below
    frontend, server = agent_kernel(verify_then_answer())
    page = NotebookPage(frontend)
    page.cells = [new_cell_json("code", "a = 1", cell_id="a1"), new_cell_json("code", "a / 0", cell_id="z1")]
    frontend.run("%%agent --allow VerifyNotebook\ndoes it run?", timeout=120)
    _, text = verify_result(server.requests)
    assert text.splitlines()[0] == (
        "NOTEBOOK_FAILS: analysis.ipynb fails at cell z1: ZeroDivisionError: division by zero"
    )
    assert page.requests >= 1 and (tmp_path / "analysis.ipynb").read_bytes() == on_disk


def test_interrupting_agent_verify_kills_the_fresh_kernel_too(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid.txt"
    write_notebook(
        tmp_path / "analysis.ipynb",
        [("spin", f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(300)")],
    )
    frontend, _ = agent_kernel([])
    cell = frontend.execute("%agent verify")
    frontend.wait(lambda: pid_file.exists() and pid_file.stat().st_size > 0, 120, "the fresh kernel's cell")
    fresh_pid = int(pid_file.read_text())
    frontend.km.interrupt_kernel()
    frontend.wait(lambda: cell.done, 60, "the interrupted %agent verify")
    assert cell.reply is not None and cell.reply["ename"] == "KeyboardInterrupt"
    assert _process_gone(fresh_pid)
    assert frontend.run("print('still here')").text().strip() == "still here"
