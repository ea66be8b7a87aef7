"""VerifyNotebook's rules that need no kernel: which cells run, the live-state hints, the arguments of
`%agent verify`, the kernel spec, and that it asks like RunCode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import jupyter_agent
from jupyter_agent.base.errors import ToolError
from jupyter_agent.builtin_tools.verify import VerifyNotebook, VerifyNotebookInput
from jupyter_agent.builtin_tools.verify.fresh import choose_spec
from jupyter_agent.builtin_tools.verify.plan import plan_cells, runnable_source
from jupyter_agent.builtin_tools.verify.runner import Failure
from jupyter_agent.builtin_tools.verify.verdict import live_only_hint
from jupyter_agent.host.command_error import CommandError
from jupyter_agent.host.verify_command import verify_arguments
from jupyter_agent.notebook.cells import Cell
from jupyter_agent.permissions.policy import Ask, PermissionPolicy
from jupyter_agent.startup_env import parse_environ
from jupyter_agent.tools.call_facts import call_facts


def code(cell_id: str, source: str) -> Cell:
    return Cell(id=cell_id, cell_type="code", source=source)


def test_agent_cells_are_skipped_and_agent_lines_become_pass_keeping_line_numbers() -> None:
    cells = [
        code("a", "%%agent\nplot it"),
        Cell(id="m", cell_type="markdown", source="# title"),
        code("b", "x = 1\n%agent status\nif x:\n    %agent mode plan\ny = 2"),
        code("c", "%agent status\n# only a comment"),
        code("d", ""),
        code("e", "%agents_are_not_ours = 1"),
    ]
    planned = {cell.id: cell for cell in plan_cells(cells, None, "nb.ipynb")}
    assert list(planned) == ["a", "b", "c", "d", "e"]  # code cells only, in order
    assert planned["a"].disposition == "agent" and planned["c"].disposition == "agent"
    assert planned["d"].disposition == "empty"
    assert planned["b"].disposition == "run" and planned["b"].position == 3
    lines = planned["b"].source.splitlines()
    assert lines[1].startswith("pass  #") and lines[3].startswith("    pass  #") and lines[4] == "y = 2"
    compile(planned["b"].source, "b", "exec")  # still valid Python, indentation included
    assert planned["e"].disposition == "run" and planned["e"].source == "%agents_are_not_ours = 1"


def test_runnable_source_keeps_the_final_newline_state() -> None:
    assert runnable_source("%agent x") == ("pass  # %agent line skipped by verification", False)
    assert runnable_source("a = 1\n") == ("a = 1\n", True)


def test_until_cell_id_includes_that_cell_and_an_unknown_id_names_the_notebook() -> None:
    cells = [code("a", "1"), code("b", "2"), code("c", "3")]
    assert [c.id for c in plan_cells(cells, "b", "nb.ipynb")] == ["a", "b"]
    with pytest.raises(ToolError) as raised:
        plan_cells(cells, "zz", "nb.ipynb")
    assert raised.value.code == "CELL_NOT_FOUND" and "'zz' in nb.ipynb" in raised.value.message


def failure(ename: str, evalue: str) -> Failure:
    return Failure(cell_id="cb", status="error", ename=ename, evalue=evalue)


def test_a_name_error_on_a_live_variable_names_the_input_that_set_it() -> None:
    namespace = {"b": 2, "In": ["", "import pandas as pd", "b, c = 2, 3\nprint(b)", "print(b)"]}
    hint = live_only_hint(
        failure("NameError", "name 'b' is not defined"), namespace=namespace, live_env={}, startup_env={}
    )
    assert hint == " — defined only in your live kernel (set by In [2]: b, c = 2, 3)"
    none = live_only_hint(
        failure("NameError", "name 'q' is not defined"), namespace=namespace, live_env={}, startup_env={}
    )
    assert none == ""  # not in the live kernel either: an ordinary bug, no hint


def test_imports_defs_and_classes_count_as_setting_a_name() -> None:
    for source in ("import numpy as b", "from x import b", "def b():\n    pass", "class b:\n    pass"):
        namespace = {"b": 1, "In": ["", source]}
        hint = live_only_hint(
            failure("NameError", "name 'b' is not defined"), namespace=namespace, live_env={}, startup_env={}
        )
        assert hint.endswith(f"(set by In [1]: {source.splitlines()[0]})"), source


def test_a_module_importable_only_live_and_an_env_var_set_only_live_are_named() -> None:
    module = live_only_hint(
        failure("ModuleNotFoundError", "No module named 'pytest'"), namespace={}, live_env={}, startup_env={}
    )
    assert module.startswith(" — importable only in your live kernel")
    env = live_only_hint(
        failure("KeyError", "'DATA_DIR'"),
        namespace={},
        live_env={"DATA_DIR": "/data", "HOME": "/root"},
        startup_env={"HOME": "/root"},
    )
    assert env.startswith(" — DATA_DIR is set only in your live kernel's environment")


def test_verify_arguments_parse_path_timeout_and_until() -> None:
    assert verify_arguments([]) == (None, None, None)
    assert verify_arguments(["r/q.ipynb", "--timeout", "30", "--until", "ab"]) == ("r/q.ipynb", 30, "ab")
    for words, message in (
        (["--timeout"], "--timeout needs a value"),
        (["--timeout", "0"], "--timeout takes whole seconds from 1 to 3600, not '0'"),
        (["a.ipynb", "b.ipynb"], "unexpected 'b.ipynb'"),
        (["--fast"], "unexpected '--fast'"),
    ):
        with pytest.raises(CommandError, match=message):
            verify_arguments(words)


def test_the_kernel_spec_is_the_notebooks_when_it_runs_this_python_else_this_kernels_interpreter() -> None:
    native = choose_spec("python3")
    assert native.description == "kernel spec 'python3'"
    unknown = choose_spec("no-such-kernel-xyz")
    assert unknown.spec.argv[0] == sys.executable
    assert "no kernel spec 'no-such-kernel-xyz' was found" in unknown.description


#: Run in a process of its own: a pytest-xdist worker's title (setproctitle) is written over its own start-up
#: environment, which `startup_environment` then rightly distrusts — a fresh interpreter's is intact.
STARTUP_ENVIRONMENT_CHILD = """
import json, os
from jupyter_agent.startup_env import startup_environment
os.environ["JUPYTER_AGENT_SET_AFTER_START"] = "1"
os.environ["JUPYTER_AGENT_CHANGED_AFTER_START"] = "after"
del os.environ["JUPYTER_AGENT_REMOVED_AFTER_START"]
print(json.dumps(startup_environment()))
"""


def test_the_start_up_environment_is_read_from_the_process_not_os_environ() -> None:
    root = Path(jupyter_agent.__file__).parent.parent
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(root),
        "JUPYTER_AGENT_CHANGED_AFTER_START": "before",
        "JUPYTER_AGENT_REMOVED_AFTER_START": "1",
    }
    child = subprocess.run(
        [sys.executable, "-c", STARTUP_ENVIRONMENT_CHILD], env=env, capture_output=True, text=True, timeout=60
    )
    assert child.returncode == 0, child.stderr
    started = json.loads(child.stdout)
    assert "JUPYTER_AGENT_SET_AFTER_START" not in started
    assert started["JUPYTER_AGENT_CHANGED_AFTER_START"] == "before"
    assert started["JUPYTER_AGENT_REMOVED_AFTER_START"] == "1"
    assert started["PATH"] == env["PATH"]


def test_verify_notebook_asks_in_default_and_accept_edits_modes(tmp_path: Path) -> None:
    from jupyter_agent.base.sandbox import Sandbox
    from jupyter_agent.tools.context import ToolContext

    ctx = ToolContext(sandbox=Sandbox.at(tmp_path))
    facts = call_facts(VerifyNotebook(), VerifyNotebookInput(notebook_path="a.ipynb"), ctx, "a.ipynb")
    for mode in ("default", "acceptEdits"):
        assert isinstance(PermissionPolicy(mode=mode).decide(facts), Ask), mode


def test_a_start_up_environment_overwritten_by_a_process_title_is_not_trusted() -> None:
    assert parse_environ(b"PATH=/bin\0HOME=/h\0\0\0") == {"PATH": "/bin", "HOME": "/h"}
    assert parse_environ(b"PATH=/bin\0EMPTY=\0") == {"PATH": "/bin", "EMPTY": ""}
    assert parse_environ(b"python -m pytest worker gw0\0LINES=24\0") is None
    assert parse_environ(b"=oops\0") is None
