"""`%load_ext` warms the SDK import in the background: it never waits for it and never fails because of it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

FAKE_SDK = """
import builtins, threading
gate = threading.Event()
builtins.fake_sdk_gate = gate
gate.wait()
raise ImportError("broken sdk (fake)")
"""

SCRIPT = """
import builtins, sys, time
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.run_line_magic("load_ext", "jupyter_agent")
from jupyter_agent import _preload
thread = _preload._started
print("loaded; preload still importing:", thread is not None and thread.is_alive(), flush=True)
shell.run_line_magic("agent", "help")
deadline = time.monotonic() + 60
while not hasattr(builtins, "fake_sdk_gate") and time.monotonic() < deadline:
    time.sleep(0.01)
builtins.fake_sdk_gate.set()
thread.join(60)
print("preload error:", repr(_preload.preload_error))
"""


def test_load_ext_returns_while_the_sdk_import_hangs_and_survives_its_failure(tmp_path: Path) -> None:
    fake = tmp_path / "fake" / "anthropic"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(FAKE_SDK)
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SCRIPT)],
        env={"PYTHONPATH": f"{tmp_path / 'fake'}:{ROOT}", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "loaded; preload still importing: True" in out.stdout
    assert "%agent status" in out.stdout  # the extension works while the SDK import hangs
    assert "preload error: ImportError('broken sdk (fake)')" in out.stdout


def test_every_module_the_warm_up_names_exists() -> None:
    from jupyter_agent import _preload

    _preload._import_all()
    assert _preload.preload_error is None


def test_a_run_waits_for_the_warm_up_instead_of_importing_the_same_modules_beside_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Two threads importing one package graph in different orders can get a partially initialised module."""
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_agent import _preload
    from jupyter_agent.host.kernel_agent import KernelAgent

    touched = threading.Event()
    # The warm-up ends early only if the run starts meanwhile (the race); else after 2 s.
    warm_up = threading.Thread(target=touched.wait, args=(2.0,), name="slow warm-up")
    seen: list[bool] = []

    def run_cell(self: KernelAgent, request: str, options: object = None) -> None:
        seen.append(warm_up.is_alive())
        touched.set()

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(KernelAgent, "run_cell", run_cell)
    shell = InteractiveShell()
    shell.run_line_magic("load_ext", "jupyter_agent")
    try:
        _preload.finish_preload()  # the real warm-up, started by load_ext
        warm_up.start()
        monkeypatch.setattr(_preload, "_started", warm_up)
        # The slow warm-up's own bound, from now: on a busy machine the real one may have used up its 30 s.
        monkeypatch.setattr(_preload, "_deadline", time.monotonic() + _preload.WAIT_LIMIT_S)
        shell.run_cell_magic("agent", "", "hi")
    finally:
        shell.run_line_magic("unload_ext", "jupyter_agent")
        shell.clear_instance()
    assert seen == [False]  # the run started after the warm-up ended


def test_building_the_first_session_imports_no_notebook_runner(tmp_path: Path) -> None:
    """nbformat, nbclient and jsonschema (which compiles grammars on import) cost a first run seconds; only
    VerifyNotebook needs them, when it runs."""
    script = textwrap.dedent(
        """
        import sys
        from IPython.core.interactiveshell import InteractiveShell
        from jupyter_agent.host.kernel_agent import KernelAgent
        from jupyter_agent.settings import AgentSettings
        agent = KernelAgent(shell=InteractiveShell.instance(), settings=AgentSettings(save_sessions=False))
        names = list(agent.session.pool.merged())
        assert "VerifyNotebook" in names, names
        print(sorted(m for m in ("nbformat", "nbclient", "jsonschema") if m in sys.modules))
        agent.close()
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_a_warm_up_that_never_ends_is_waited_for_only_until_the_limit_and_told_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from jupyter_agent import _preload

    never = threading.Event()
    hung = threading.Thread(target=never.wait, name="hung warm-up", daemon=True)
    hung.start()
    try:
        monkeypatch.setattr(_preload, "_started", hung)
        monkeypatch.setattr(_preload, "_deadline", 0.0)  # the limit has passed
        monkeypatch.setattr(_preload, "_told", False)
        monkeypatch.setattr(_preload, "_importing", "slow_module")
        assert _preload.finish_preload() is False
        assert _preload.finish_preload() is False
        told = capsys.readouterr().err
        assert told.count("still importing 'slow_module'") == 1 and len(told.splitlines()) == 1, told
    finally:
        never.set()
        hung.join()
