"""RunCode through a real Dispatcher: output in order, the last value, exceptions, images, timeouts.

The main-thread service is `InlineMainThread` (the code runs in a helper thread of the test's loop): the
real one belongs to the kernel's UI thread and is exercised by the kernel tests. Rich output comes from a
real IPython `InteractiveShell`.
"""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import Approvals, ToolHarness
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config

from jupyter_agent.builtin_tools.kernel import InlineMainThread, RunCode
from jupyter_agent.tools import (
    Approve,
    Limits,
    ToolResult,
)
from jupyter_agent.tools.context import ToolServices

PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    config = Config()
    config.HistoryManager.enabled = False
    instance = InteractiveShell.instance(config=config)
    yield instance
    InteractiveShell.clear_instance()


def run(
    code: str,
    tmp_path: Path,
    *,
    namespace: dict[str, Any] | None = None,
    shell: InteractiveShell | None = None,
    timeout_ms: int | None = None,
    services: ToolServices | None = None,
    limits: Limits | None = None,
) -> ToolResult:
    chosen = ToolServices(main_thread=InlineMainThread()) if services is None else services
    if shell is not None:
        chosen = dataclasses.replace(chosen, shell=shell)
        namespace = shell.user_ns
    tools = ToolHarness(
        tmp_path,
        [RunCode()],
        mode="bypassPermissions",
        limits=limits,
        namespace={} if namespace is None else namespace,
        services=chosen,
    )
    args: dict[str, Any] = {"code": code} if timeout_ms is None else {"code": code, "timeout": timeout_ms}
    return tools.call("RunCode", args)


def test_output_comes_in_order_with_the_last_value_and_variables_stay(tmp_path: Path) -> None:
    namespace: dict[str, Any] = {"base": 40}
    code = "import sys\nprint('loading')\nprint('careful', file=sys.stderr)\ntotal = base + 2\ntotal"
    result = run(code, tmp_path, namespace=namespace)
    assert not result.is_error
    assert (
        result.content
        == "loading\ncareful\nOut: 42\n[kernel variables this code changed — %agent undo removes (new): sys, total]"
    )
    assert result.summary == "3 lines of output"
    assert namespace["total"] == 42


def test_progress_bars_keep_only_their_last_state(tmp_path: Path) -> None:
    code = "import sys\nfor p in (10, 50, 100):\n    sys.stderr.write(f'\\rloading {p}%')\nprint()\nprint('a\\r\\nb')"
    assert (
        run(code, tmp_path).content
        == "loading 100%\na\nb\n[kernel variables this code changed — %agent undo removes (new): p, sys]"
    )


def test_a_trailing_semicolon_hides_the_value_like_in_a_cell(tmp_path: Path) -> None:
    assert (
        run("x = 1\nx;", tmp_path).content
        == "(no output)\n[kernel variables this code changed — %agent undo removes (new): x]"
    )


def test_an_exception_is_an_error_with_the_output_before_it_and_the_traceback(tmp_path: Path) -> None:
    result = run(
        "print('step 1')\nrate = 0\nraise ValueError(f'rate must be positive, got {rate}')", tmp_path
    )
    assert result.error_code == "EXECUTION_ERROR"
    filename = result.content.split('File "')[1].split('"')[0]
    assert filename.startswith("<agent-code-")
    assert result.content == (
        "EXECUTION_ERROR: the code raised ValueError: rate must be positive, got 0\n"
        "Output before the error:\n"
        "step 1\n"
        "Traceback (most recent call last):\n"
        f'  File "{filename}", line 3, in <module>\n'
        "    raise ValueError(f'rate must be positive, got {rate}')\n"
        "ValueError: rate must be positive, got 0\n"
        "[kernel variables this code changed — %agent undo removes (new): rate]"  # what ran before the error
    )
    assert result.summary == "ValueError: rate must be positive, got 0"


def test_a_syntax_error_points_at_the_line(tmp_path: Path) -> None:
    result = run("x = (1,\n", tmp_path)
    assert result.error_code == "EXECUTION_ERROR"
    assert "SyntaxError" in result.content and "line 1" in result.content


def test_top_level_await_is_refused_with_the_reason(tmp_path: Path) -> None:
    result = run("import asyncio\nawait asyncio.sleep(0)", tmp_path)
    assert result.content == (
        "EXECUTION_ERROR: the code raised TopLevelAwait: RunCode cannot run top-level `await`: the kernel's event "
        "loop is busy running the agent's cell. Use synchronous calls, or ask the user to run that code in a cell"
    )


def test_a_displayed_image_comes_back_as_an_image_block(tmp_path: Path, shell: InteractiveShell) -> None:
    shell.user_ns["PNG"] = PIXEL_PNG
    code = (
        "import base64\nfrom IPython.display import Image, display\n"
        "print('plotting')\ndisplay(Image(data=base64.b64decode(PNG)))\nprint('done')"
    )
    result = run(code, tmp_path, shell=shell)
    assert not result.is_error
    assert (
        result.content
        == "plotting\n<IPython.core.display.Image object> [image/png attached as image 1]\ndone"
        "\n[kernel variables this code changed — %agent undo removes (new): base64, display, Image]"
    )
    assert [(i.media_type, base64.b64decode(i.data)) for i in result.images] == [
        ("image/png", base64.b64decode(PIXEL_PNG))
    ]
    block = result.to_block("t1")
    assert [b["type"] for b in block["content"]] == ["text", "image"]


def test_with_a_shell_ipython_syntax_and_rich_reprs_work(tmp_path: Path, shell: InteractiveShell) -> None:
    result = run(
        "values = !echo 3\nimport pandas as pd\npd.DataFrame({'n': [int(values[0])]})", tmp_path, shell=shell
    )
    assert (
        result.content
        == "Out:\n   n\n0  3\n[kernel variables this code changed — %agent undo removes (new): pd, values]"
    )


def test_a_runaway_loop_is_stopped_at_the_timeout_and_keeps_what_it_did(tmp_path: Path) -> None:
    namespace: dict[str, Any] = {}
    code = "print('started')\nsteps = 0\nwhile True:\n    steps += 1"
    result = run(code, tmp_path, namespace=namespace, timeout_ms=200)
    assert result.error_code == "TIMEOUT"
    assert result.content.startswith(
        "TIMEOUT: the code did not finish in 0.2 s and was stopped by a CodeTimeout exception; what it assigned "
        "before that stays in the namespace\nOutput before the stop:\nstarted\nTraceback (most recent call last):"
    )
    assert result.content.endswith(
        "CodeTimeout: RunCode's time limit was reached here\n"
        "[kernel variables this code changed — %agent undo removes (new): steps]"
    )
    assert namespace["steps"] > 0
    # The stop does not linger: the next call on the same kind of thread runs normally.
    assert run("1 + 1", tmp_path, namespace=namespace).content == "Out: 2"


def test_except_exception_in_user_code_cannot_swallow_the_timeout(tmp_path: Path) -> None:
    code = "while True:\n    try:\n        sum(range(1000))\n    except Exception:\n        pass"
    assert run(code, tmp_path, timeout_ms=200).error_code == "TIMEOUT"


def test_an_interrupt_reaches_the_main_thread_and_the_model_gets_what_ran_before(tmp_path: Path) -> None:
    result = run("print('loading')\nraise KeyboardInterrupt", tmp_path)
    assert result.error_code == "INTERRUPTED"
    assert result.content == (
        "INTERRUPTED: the user interrupted the code (KeyboardInterrupt)\nOutput before the interrupt:\nloading"
    )


def test_long_output_keeps_head_and_tail(tmp_path: Path) -> None:
    limits = Limits(max_output_chars=2000)
    result = run("for i in range(5000):\n    print(f'line {i}')", tmp_path, limits=limits)
    assert result.content.startswith("line 0\nline 1\n")
    assert result.content.endswith(
        "line 4999\n[kernel variables this code changed — %agent undo removes (new): i]"
    )
    assert "cut" in result.content
    assert len(result.content) < 3000


def test_without_the_main_thread_service_runcode_is_not_available(tmp_path: Path) -> None:
    result = run("1", tmp_path, services=ToolServices())
    assert result.content == (
        "NOT_AVAILABLE: RunCode needs the kernel's main thread to run code on, and this session does not provide "
        "one (it is not running inside a Jupyter kernel); use the other tools instead"
    )


def test_runcode_asks_first_and_shows_the_code(tmp_path: Path) -> None:
    approvals = Approvals(Approve())
    tools = ToolHarness(
        tmp_path,
        [RunCode()],
        mode="acceptEdits",
        approver=approvals,
        namespace={},
        services=ToolServices(main_thread=InlineMainThread()),
    )
    dispatched = tools.dispatch("RunCode", code="df = load()\ndf.head()")
    assert [(r.title, r.preview.kind, r.preview.text, r.preview.language) for r in approvals.requests] == [
        ("RunCode df = load()", "code", "df = load()\ndf.head()", "python")
    ]
    assert dispatched.result.content.startswith("EXECUTION_ERROR: the code raised NameError: name 'load'")


def test_calls_leave_no_hooks_behind_on_the_shell(tmp_path: Path, shell: InteractiveShell) -> None:
    before = {event: len(shell.events.callbacks[event]) for event in ("pre_execute", "post_execute")}
    for _ in range(3):
        assert not run("print('x')", tmp_path, shell=shell).is_error
    after = {event: len(shell.events.callbacks[event]) for event in ("pre_execute", "post_execute")}
    assert after == before  # IPython 9 registers each display publisher's hooks; one per call piled up
