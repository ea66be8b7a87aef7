"""`%agent jobs` lists the background jobs; unloading the extension (as a kernel shutdown does) stops them."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.magics import AgentMagics
from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedServer]:
    start = {"command": "sleep 300", "run_in_background": True, "description": "wait a while"}
    started = ScriptedServer(
        [Turn(blocks=[ToolUse(name="Bash", input=start)]), Turn(blocks=[Text("started it")])]
    ).start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", started.url)
    yield started
    started.stop()


@pytest.mark.parametrize("sandboxed", [True, False], ids=["bubblewrap", "no-bubblewrap"])
def test_jobs_are_listed_and_die_when_the_extension_unloads(
    shell: InteractiveShell,
    server: ScriptedServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    sandboxed: bool,
) -> None:
    if not sandboxed:  # without bwrap's --die-with-parent only the unload itself stops the job
        from jupyter_agent.permissions.bubblewrap import BWRAP_ENV

        monkeypatch.setenv(BWRAP_ENV, "/nonexistent/bwrap")
    shell.run_cell_magic("agent", "--mode bypassPermissions --allow Bash", "start a long job")
    capsys.readouterr()
    shell.run_line_magic("agent", "jobs")
    listing = capsys.readouterr().out
    assert "bash_1   running" in listing and "sleep 300" in listing
    magics = shell.magics_manager.registry["AgentMagics"]
    assert isinstance(magics, AgentMagics)
    agent = magics.kernel_agent
    jobs = agent.session.ctx.services.jobs
    assert jobs is not None
    proc = jobs.get("bash_1").proc
    shell.run_line_magic("unload_ext", "jupyter_agent")
    deadline = time.monotonic() + 10
    while proc.poll() is None:
        assert time.monotonic() < deadline, "the background job survived the unload"
        time.sleep(0.02)
    shell.run_line_magic("load_ext", "jupyter_agent")  # the fixture unloads it again
