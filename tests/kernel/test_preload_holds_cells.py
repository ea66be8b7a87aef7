"""No cell runs while `%load_ext`'s warm-up imports in its thread: on Python 3.11 two threads making AST objects at
once can break each other's (a cell's traceback then came out as "Unexpected exception formatting exception",
with no error output), and importing the agent makes AST objects (pydantic reads field docs with `ast.parse`)."""

from __future__ import annotations

from pathlib import Path

from frontend import KernelFrontend

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
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "slow_warm_up.py").write_text(SLOW_IMPORT)
    frontend = KernelFrontend(
        tmp_path,
        env={
            "PYTHONPATH": f"{ROOT}:{modules}",
            "ANTHROPIC_API_KEY": TEST_API_KEY,
            "JUPYTER_DATA_DIR": str(tmp_path / "jupyter-data"),
        },
    )
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
