"""No run waits for a greeting that cannot come: `%load_ext` opens the comm to the page, a run sends its first
request at once whether or not the page greeted, and a page that greets late is still found.

The kernel's greeting timeout is set to 120 s here, so a run that waited for it would not end within the test's
60 s."""

from __future__ import annotations

import pytest
from frontend import AgentKernel, KernelFrontend, result_text, tool_results
from notebook_page import NotebookPage

from jupyter_agent.notebook.bridge import COMM_TARGET
from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

LONG_GREETING_TIMEOUT = (
    "from jupyter_agent.magics import AgentMagics\n"
    "[m for m in get_ipython().configurables if isinstance(m, AgentMagics)][0].kernel_agent.bridge.hello_timeout = 120"
)


def notebook_comms(frontend: KernelFrontend) -> list[str]:
    return [
        m["content"]["comm_id"]
        for m in frontend.iopub_log
        if m["msg_type"] == "comm_open" and m["content"]["target_name"] == COMM_TARGET
    ]


def test_a_run_in_a_frontend_without_the_extension_does_not_wait_and_a_late_page_is_found(
    agent_kernel: AgentKernel,
) -> None:
    frontend, server = agent_kernel(
        [
            Turn(blocks=[Text("first answer")]),
            Turn(blocks=[ToolUse(name="NotebookRead", input={})]),
            Turn(blocks=[Text("read it")]),
        ]
    )
    assert len(notebook_comms(frontend)) == 1  # opened by %load_ext
    frontend.run(LONG_GREETING_TIMEOUT)
    first = frontend.run("%%agent\nhello", timeout=60)  # no page has greeted: the run does not wait for one
    assert "first answer" in first.text()

    page = NotebookPage(frontend)  # the page greets late, between runs
    second = frontend.run("%%agent\nread the notebook", timeout=60)
    assert "read it" in second.text()
    [read] = tool_results(server.requests[2])
    assert "open in JupyterLab" in result_text(read)  # live: from the page, not the file
    assert page.requests == 1 and len(page.comm_ids) == 1 == len(notebook_comms(frontend))


def test_a_headless_client_is_never_asked_for_a_greeting(agent_kernel: AgentKernel) -> None:
    frontend, _ = agent_kernel([Turn(blocks=[Text("answered")])], headless=True)
    ran = frontend.run("%%agent\nhello", timeout=60)
    assert "answered" in ran.text()
    assert notebook_comms(frontend) == []  # nbclient would log "No handler found for comm target"
