"""No cell runs while `%load_ext`'s warm-up imports in its thread: on Python 3.11 two threads making AST objects at
once can break each other's (a cell's traceback then came out as "Unexpected exception formatting exception",
with no error output), and importing the agent makes AST objects (pydantic reads field docs with `ast.parse`)."""

from __future__ import annotations

import time
from pathlib import Path

from frontend import Execution, KernelFrontend

from jupyter_agent.testing import TEST_API_KEY

ROOT = Path(__file__).resolve().parents[2]

#: A module the warm-up imports first: it makes AST objects for a while (as pydantic does), then notes when it ended.
SLOW_IMPORT = """\
import ast, time
_until = time.monotonic() + 1.5
while time.monotonic() < _until:
    ast.parse("def f(a, b):\\n    return [x * (a + b) for x in range(10) if x % 2]\\n" * 20)
ENDED = time.monotonic()
"""


def test_a_cell_right_after_load_ext_waits_for_the_warm_up_and_its_error_is_shown(tmp_path: Path) -> None:
    frontend = warm_up_kernel(tmp_path, "slow_warm_up", SLOW_IMPORT)
    try:
        patched = frontend.run(
            "import jupyter_agent._preload as preload\npreload.MODULES = ('slow_warm_up', *preload.MODULES)"
        )
        assert patched.reply is not None and patched.reply["status"] == "ok", patched.text()
        frontend.run("%load_ext jupyter_agent")
        failed = frontend.run("import time\nstarted = time.monotonic()\n1 / 0")
        errors = [m for m in failed.outputs if m["msg_type"] == "error"]
        assert [e["content"]["ename"] for e in errors] == ["ZeroDivisionError"], failed.text()
        assert "Unexpected exception formatting exception" not in failed.text()
        order = frontend.run("import slow_warm_up\nprint(started >= slow_warm_up.ENDED)")
        assert order.text().strip() == "True", order.text()  # the cell started once the warm-up had ended
    finally:
        frontend.close()


def warm_up_kernel(tmp_path: Path, module: str, source: str) -> KernelFrontend:
    """A kernel that can import `module` (written from `source`), before `%load_ext`."""
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / f"{module}.py").write_text(source)
    return KernelFrontend(
        tmp_path,
        env={
            "PYTHONPATH": f"{ROOT}:{modules}",
            "ANTHROPIC_API_KEY": TEST_API_KEY,
            "JUPYTER_DATA_DIR": str(tmp_path / "jupyter-data"),
        },
    )


#: A warm-up import that never ends by itself (a hung network file system, a broken install).
HANGING_IMPORT = "import time\ntime.sleep(3600)\n"


def hanging_kernel(tmp_path: Path, wait_limit: float) -> KernelFrontend:
    """A kernel whose `%load_ext` warm-up hangs in its first import, with cells waiting `wait_limit` s at most."""
    frontend = warm_up_kernel(tmp_path, "hanging_warm_up", HANGING_IMPORT)
    patched = frontend.run(
        "import jupyter_agent._preload as preload\n"
        f"preload.MODULES = ('hanging_warm_up', *preload.MODULES)\npreload.WAIT_LIMIT_S = {wait_limit}"
    )
    assert patched.reply is not None and patched.reply["status"] == "ok", patched.text()
    loaded = frontend.run("%load_ext jupyter_agent")
    assert loaded.reply is not None and loaded.reply["status"] == "ok", loaded.text()
    return frontend


def stderr_of(cell: Execution) -> str:
    return "".join(
        m["content"]["text"]
        for m in cell.outputs
        if m["msg_type"] == "stream" and m["content"]["name"] == "stderr"
    )


def started(frontend: KernelFrontend, cell: Execution) -> bool:
    """The kernel has taken the cell up (its execute_input is out)."""
    return any(
        m["msg_type"] == "execute_input" and m["parent_header"].get("msg_id") == cell.msg_id
        for m in frontend.iopub_log
    )


NOTICE = "the warm-up %load_ext started is still importing 'hanging_warm_up'"


def test_a_warm_up_that_hangs_holds_a_cell_only_until_the_limit_and_says_so_once(tmp_path: Path) -> None:
    frontend = hanging_kernel(tmp_path, wait_limit=3)
    try:
        first = frontend.run("print('the cell ran')", timeout=60)
        assert first.reply is not None and first.reply["status"] == "ok", first.text()
        assert "the cell ran" in first.text()
        told = stderr_of(first)
        assert told.count(NOTICE) == 1 and "it has run 3 s" in told, told
        assert len(told.strip().splitlines()) == 1, told  # one line
        second = frontend.run("print('and the next one')", timeout=60)
        assert "and the next one" in second.text() and stderr_of(second) == "", second.text()
        status = frontend.run(
            "%agent status", timeout=60
        )  # the agent's own wait is bounded too, and quiet now
        assert status.reply is not None and status.reply["status"] == "ok", status.text()
        assert NOTICE not in status.text()
        alive = frontend.run(
            "import threading\nprint([t.name for t in threading.enumerate() if t.name == 'jupyter-agent-preload'])"
        )
        assert "['jupyter-agent-preload']" in alive.text()  # it did hang: the cells ran beside it
    finally:
        frontend.close()


def test_interrupting_the_wait_for_a_hanging_warm_up_ends_the_hold(tmp_path: Path) -> None:
    frontend = hanging_kernel(tmp_path, wait_limit=3600)
    try:
        held = frontend.execute("print('the held cell ran')")
        frontend.wait(lambda: started(frontend, held), 30, "the cell to start")
        time.sleep(1)  # the cell is in its wait (the warm-up hangs for an hour)
        frontend.km.interrupt_kernel()
        frontend.wait(lambda: held.done, 30, "the held cell")
        assert stderr_of(held).count(NOTICE) == 1 and "the wait was interrupted" in stderr_of(held), (
            held.text()
        )
        assert "Error in callback" not in held.text()
        following = frontend.run("print('no wait now')", timeout=30)
        assert "no wait now" in following.text() and stderr_of(following) == ""
    finally:
        frontend.close()
