"""Kernel tests: a real ipykernel, driven over ZMQ by jupyter_client, running this source tree, talking to
the scripted Messages API server over HTTP."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from jupyter_agent.testing import TEST_API_KEY, Script, ScriptedServer

sys.path.insert(0, str(Path(__file__).parent))
from frontend import KernelFrontend

ROOT = Path(__file__).resolve().parents[2]

AgentKernel = Callable[..., tuple[KernelFrontend, ScriptedServer]]


@pytest.fixture
def agent_kernel(tmp_path: Path) -> Iterator[AgentKernel]:
    """`agent_kernel(script, widgets=True)` → a kernel with `%load_ext jupyter_agent` done, and its model server.

    `headless=True` drives it as nbclient does (papermill, nbconvert, voila): `allow_stdin` false, no widgets.
    """
    started: list[tuple[KernelFrontend, ScriptedServer]] = []

    def start(
        script: Script, *, widgets: bool = True, env: dict[str, str] | None = None, headless: bool = False
    ) -> tuple[KernelFrontend, ScriptedServer]:
        server = ScriptedServer(script).start()
        kernel_env = {
            "PYTHONPATH": str(ROOT),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": TEST_API_KEY,
            "JPY_SESSION_NAME": str(tmp_path / "analysis.ipynb"),
            "JUPYTER_DATA_DIR": str(tmp_path / "jupyter-data"),  # saved sessions stay in the test
            **(env or {}),
        }
        frontend = KernelFrontend(
            tmp_path, env=kernel_env, widgets=widgets and not headless, allow_stdin=not headless
        )
        started.append((frontend, server))
        loaded = frontend.run("%load_ext jupyter_agent")
        assert loaded.reply is None or loaded.reply["status"] == "ok", loaded.text()
        return frontend, server

    yield start
    for frontend, server in started:
        frontend.close()
        server.stop()
