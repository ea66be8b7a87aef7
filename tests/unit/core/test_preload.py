"""`%load_ext` warms the SDK import in the background: it never waits for it and never fails because of it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

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
