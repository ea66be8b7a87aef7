"""`%agent serve` in a real kernel, driven by the `mcp` SDK's own streamable-HTTP client: the token and the
Origin are checked, the package's tools are listed and run through its Dispatcher in the user's kernel (between
cells, never during one), an edit changes only its cell, an outside run is reviewed and undone like the agent's,
and a stopped server takes no more connections."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx2
import mcp_types
import nbformat
import pytest
from frontend import AgentKernel, KernelFrontend
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from notebook_page import NotebookPage

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

T = TypeVar("T")
CLIENT = "outside-test-client"
SERVED = {
    "NotebookRead",
    "NotebookEdit",
    "RunCell",
    "RunCode",
    "Inspect",
    "ListVariables",
    "Debug",
    "VerifyNotebook",
    "Read",
    "Grep",
    "Glob",
    "Edit",
    "Write",
    "MultiEdit",
}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}


def serve(frontend: KernelFrontend, line: str) -> tuple[str, str, str]:
    """Start the server; its URL, token and everything the cell printed."""
    cell = frontend.run(f"%agent serve {line}")
    text = cell.text()
    assert cell.reply is not None and cell.reply["status"] == "ok", text
    url = re.search(r"^URL (http://127\.0\.0\.1:\d+/mcp)$", text, re.M)
    token = re.search(r"^TOKEN (\S+)$", text, re.M)
    assert url is not None and token is not None, text
    return url.group(1), token.group(1), text


def with_client(url: str, token: str, use: Callable[[Client], Awaitable[T]]) -> T:
    async def main() -> T:
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0)) as http:
            transport = streamable_http_client(url, http_client=http)
            info = mcp_types.Implementation(name=CLIENT, version="1.0")
            async with Client(transport, client_info=info) as client:
                return await use(client)

    return anyio.run(main)


def call(url: str, token: str, name: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
    async def use(client: Client) -> mcp_types.CallToolResult:
        result = await client.call_tool(name, arguments)
        assert isinstance(result, mcp_types.CallToolResult)
        return result

    return with_client(url, token, use)


def text_of(result: mcp_types.CallToolResult) -> str:
    return "".join(part.text for part in result.content if isinstance(part, mcp_types.TextContent))


def make_notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title", id="intro"),
        nbformat.v4.new_code_cell("x = 1\nprint(x)", id="load"),
        nbformat.v4.new_code_cell("y = x * 2  # keep me", id="tail"),
    ]
    nbformat.write(nb, path)


def cells_of(path: Path) -> dict[str, Any]:
    return {cell["id"]: cell for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]}


def test_an_outside_client_reads_edits_runs_and_the_user_undoes_it(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, _ = agent_kernel([])
    notebook = tmp_path / "other.ipynb"
    make_notebook(notebook)
    original = notebook.read_bytes()
    url, token, printed = serve(frontend, "--mode acceptEdits --allow RunCode")
    assert (
        f'claude mcp add --transport http jupyter-agent {url} --header "Authorization: Bearer {token}"'
        in printed
    )
    assert '"mcpServers"' in printed and f'"url": "{url}"' in printed

    initialize = json.dumps(INITIALIZE)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    assert httpx2.post(url, content=initialize, headers=headers).status_code == 401
    wrong = {**headers, "Authorization": "Bearer not-the-token"}
    assert httpx2.post(url, content=initialize, headers=wrong).status_code == 401
    foreign = {**headers, "Authorization": f"Bearer {token}", "Origin": "https://evil.example"}
    assert httpx2.post(url, content=initialize, headers=foreign).status_code == 403
    local = {**headers, "Authorization": f"Bearer {token}", "Origin": "http://localhost:6274"}
    assert httpx2.post(url, content=initialize, headers=local).status_code == 200

    async def listed(client: Client) -> list[mcp_types.Tool]:
        return list((await client.list_tools()).tools)

    tools = {tool.name: tool for tool in with_client(url, token, listed)}
    assert set(tools) == SERVED
    read_hints, edit_hints = tools["NotebookRead"].annotations, tools["Edit"].annotations
    assert read_hints is not None and read_hints.read_only_hint is True
    assert edit_hints is not None and edit_hints.destructive_hint is True
    assert "file_path" in tools["Edit"].input_schema["properties"]

    async def read_then_edit(client: Client) -> tuple[Any, Any]:
        read = await client.call_tool("NotebookRead", {"notebook_path": str(notebook)})
        edit = await client.call_tool(
            "NotebookEdit",
            {"notebook_path": str(notebook), "cell_id": "load", "new_source": "x = 41\nprint(x)"},
        )
        return read, edit

    read, edit = with_client(url, token, read_then_edit)
    assert not read.is_error and "keep me" in text_of(read)
    assert not edit.is_error, text_of(edit)
    after = cells_of(notebook)
    assert "".join(after["load"]["source"]) == "x = 41\nprint(x)"
    original_cells = {cell["id"]: cell for cell in json.loads(original)["cells"]}
    assert after["intro"] == original_cells["intro"] and after["tail"] == original_cells["tail"]

    ran = call(url, token, "RunCode", {"code": f"served_x = 41 + 1\nprint({token!r})"})
    assert not ran.is_error, text_of(ran)
    assert token not in text_of(ran)  # the server's token is a secret: masked in every result
    shown = frontend.run("print(served_x)")
    assert shown.text().strip() == "42"

    status = frontend.run("%agent status").text()
    assert url in status and CLIENT in status
    review = frontend.run("%agent review").text()
    assert CLIENT in review, review

    undone = frontend.run("%agent undo")  # the RunCode: served_x goes
    assert undone.reply is not None and undone.reply["status"] == "ok", undone.text()
    assert frontend.run("print('served_x' in globals())").text().strip() == "False"
    frontend.run("%agent undo")  # the NotebookEdit: the file as it was
    assert notebook.read_bytes() == original

    stopped = frontend.run("%agent serve stop").text()
    assert "stopped" in stopped
    with pytest.raises(httpx2.ConnectError):
        httpx2.post(url, content=initialize, headers={**headers, "Authorization": f"Bearer {token}"})


def test_a_default_mode_server_refuses_an_edit_no_one_can_approve(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, _ = agent_kernel([], headless=True)
    notebook = tmp_path / "other.ipynb"
    make_notebook(notebook)
    original = notebook.read_bytes()
    url, token, _ = serve(frontend, "")

    async def read_then_edit(client: Client) -> Any:
        await client.call_tool("NotebookRead", {"notebook_path": str(notebook)})
        return await client.call_tool(
            "NotebookEdit", {"notebook_path": str(notebook), "cell_id": "load", "new_source": "changed"}
        )

    edit = with_client(url, token, read_then_edit)
    assert edit.is_error
    assert "allow_stdin is false" in text_of(edit), text_of(edit)
    assert notebook.read_bytes() == original
    frontend.run("%agent serve stop")


def test_an_outside_call_waits_for_the_running_cell_and_never_interleaves(agent_kernel: AgentKernel) -> None:
    frontend, _ = agent_kernel([], headless=True)
    url, token, _ = serve(frontend, "--allow RunCode")
    frontend.run("order = []")
    cell = frontend.execute(
        "import time\norder.append('cell starts')\ntime.sleep(3)\norder.append('cell ends')"
    )
    frontend.wait(
        lambda: any(m["msg_type"] == "execute_input" for m in frontend.iopub_log[-5:]), 10, "the cell"
    )
    results: list[mcp_types.CallToolResult] = []
    outside = threading.Thread(
        target=lambda: results.append(call(url, token, "RunCode", {"code": "order.append('outside')"}))
    )
    outside.start()
    frontend.wait(lambda: cell.done, 30, "the sleeping cell")
    outside.join(30)
    assert results and not results[0].is_error, results
    assert frontend.run("print(order)").text().strip() == "['cell starts', 'cell ends', 'outside']"
    frontend.run("%agent serve stop")


def test_an_approval_shows_in_the_serve_cell_and_allow_applies_it(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, _ = agent_kernel([])
    notebook = tmp_path / "other.ipynb"
    make_notebook(notebook)
    url, token, _ = serve(frontend, "--approval-timeout 60")
    results: list[Any] = []

    async def read_then_edit(client: Client) -> Any:
        await client.call_tool("NotebookRead", {"notebook_path": str(notebook)})
        return await client.call_tool(
            "NotebookEdit",
            {"notebook_path": str(notebook), "cell_id": "load", "new_source": "approved = True"},
        )

    outside = threading.Thread(target=lambda: results.append(with_client(url, token, read_then_edit)))
    outside.start()
    deadline = time.monotonic() + 60
    while outside.is_alive() and time.monotonic() < deadline and not frontend.buttons("Allow once"):
        frontend.poll(0.05)
    frontend.click("Allow once")
    while outside.is_alive() and time.monotonic() < deadline:
        frontend.poll(0.05)
    outside.join(5)
    assert results and not results[0].is_error, results
    assert "".join(cells_of(notebook)["load"]["source"]) == "approved = True"
    frontend.run("%agent serve stop")


def test_deny_in_the_serve_cell_leaves_the_file_byte_identical_and_the_board_shows_the_call(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, _ = agent_kernel([])
    notebook = tmp_path / "other.ipynb"
    make_notebook(notebook)
    original = notebook.read_bytes()
    url, token, _ = serve(frontend, "")
    results: list[Any] = []

    async def read_then_edit(client: Client) -> Any:
        await client.call_tool("NotebookRead", {"notebook_path": str(notebook)})
        return await client.call_tool(
            "NotebookEdit", {"notebook_path": str(notebook), "cell_id": "load", "new_source": "denied = True"}
        )

    outside = threading.Thread(target=lambda: results.append(with_client(url, token, read_then_edit)))
    outside.start()
    frontend.click("Deny", timeout=60)
    deadline = time.monotonic() + 60
    while outside.is_alive() and time.monotonic() < deadline:
        frontend.poll(0.05)
    outside.join(5)
    assert results and results[0].is_error and "DENIED" in text_of(results[0]), results
    assert notebook.read_bytes() == original
    frontend.poll(0.2)
    board = "\n".join(
        str(w.state.get("value", "")) for w in frontend.live_widgets() if w.model == "HTMLModel"
    )
    assert f"from {CLIENT}" in board and "Read other.ipynb" in board and "NotebookEdit other.ipynb" in board
    assert 'data-status="denied"' in board
    assert token not in board
    frontend.run("%agent serve stop")


def test_interrupt_stops_an_outside_calls_code(agent_kernel: AgentKernel) -> None:
    frontend, _ = agent_kernel([], headless=True)
    url, token, _ = serve(frontend, "--allow RunCode")
    results: list[mcp_types.CallToolResult] = []
    code = "import time\nfor _ in range(600):\n    time.sleep(0.1)\nfinished = True"
    outside = threading.Thread(target=lambda: results.append(call(url, token, "RunCode", {"code": code})))
    started = time.monotonic()
    outside.start()
    time.sleep(3)
    frontend.km.interrupt_kernel()
    outside.join(40)
    assert results, "the outside call did not end after the Interrupt"
    assert results[0].is_error, text_of(results[0])
    assert time.monotonic() - started < 40
    assert frontend.run("print('finished' in globals())").text().strip() == "False"
    assert frontend.run("print(6 * 7)").text().strip() == "42"  # the kernel still serves cells
    frontend.run("%agent serve stop")


def test_plan_mode_refuses_code_and_a_token_file_keeps_the_token_out_of_the_output(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, _ = agent_kernel([], headless=True)
    token_file = tmp_path / "serve-token"
    cell = frontend.run(f"%agent serve --mode plan --token-file {token_file}")
    text = cell.text()
    token = token_file.read_text().strip()
    assert oct(token_file.stat().st_mode & 0o777) == "0o600"
    assert token not in text and f"TOKEN written to {token_file}" in text
    url = re.search(r"^URL (\S+)$", text, re.M)
    assert url is not None
    ran = call(url.group(1), token, "RunCode", {"code": "planned = 1"})
    assert ran.is_error
    assert frontend.run("print('planned' in globals())").text().strip() == "False"
    frontend.run("%agent serve stop")


def test_rewind_to_before_an_outside_run_undoes_it_and_the_agent_runs_after_it(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    loader = b"def load():\r\n    return range(1, 3)\r\n"
    (tmp_path / "loader.py").write_bytes(loader)
    edit_loader = {"file_path": "loader.py", "old_string": "range(1, 3)", "new_string": "range(1, 4)"}
    frontend, server = agent_kernel(
        [
            Turn(blocks=[Text("Looked.")]),  # run 1
            Turn(
                blocks=[ToolUse(name="Read", input={"file_path": "loader.py"})]
            ),  # run 5, after the outside ones
            Turn(blocks=[ToolUse(name="Edit", input=edit_loader)]),
            Turn(blocks=[Text("Fixed the loader.")]),
            Turn(blocks=[Text("Answered after the rewind.")]),
        ]
    )
    page = NotebookPage(frontend)  # the live notebook, analysis.ipynb: cell a1 is `a = 1`
    assert "Looked." in frontend.run("%%agent\nfirst: look", timeout=60).text()
    url, token, _ = serve(frontend, "--mode acceptEdits --allow RunCode")

    async def outside(client: Client) -> list[Any]:
        return [
            await client.call_tool("NotebookRead", {"cell_id": "a1"}),  # run 2
            await client.call_tool("NotebookEdit", {"cell_id": "a1", "new_source": "a = 2"}),  # run 3
            await client.call_tool("RunCode", {"code": "served = 1"}),  # run 4
        ]

    calls = polling(frontend, lambda: with_client(url, token, outside))
    assert not any(result.is_error for result in calls), [text_of(result) for result in calls]
    assert page.cells[0]["source"] == "a = 2"
    fixed = frontend.run("%%agent --mode acceptEdits\nsecond: fix the loader", timeout=90)
    assert "Fixed the loader." in fixed.text()
    assert (tmp_path / "loader.py").read_bytes() != loader
    before_run_5 = without_cache_marks(server.requests[1]["messages"][:-1])

    said = frontend.run("%agent rewind 3", timeout=60).text()

    assert said.startswith("rewound to before run 3: the conversation lost runs 3, 4, 5 ("), said
    assert "restored loader.py" in said and "restored cell a1 in analysis.ipynb" in said
    assert (tmp_path / "loader.py").read_bytes() == loader
    assert page.cells[0]["source"] == "a = 1"
    assert frontend.run("print('served' in globals())").text().strip() == "False"
    history = frontend.run("%agent history").text()
    assert f"run 3: [{CLIENT}, outside] NotebookEdit a1 (rewound)" in history, history
    assert f"run 2: [{CLIENT}, outside] NotebookRead a1\n" in history  # before the rewind's run: untouched
    count = len(server.requests)
    frontend.run("%%agent\nthird: something else", timeout=60)
    sent = without_cache_marks(server.requests[count]["messages"])
    assert sent[:-1] == before_run_5  # the conversation as it was before the outside runs
    assert "second: fix the loader" not in json.dumps(sent)
    frontend.run("%agent serve stop")


def polling(frontend: KernelFrontend, work: Callable[[], T], timeout: float = 60) -> T:
    """`work()` on a thread while this one keeps the frontend's side going (the page's comm answers)."""
    done: list[T] = []
    thread = threading.Thread(target=lambda: done.append(work()), daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while thread.is_alive() and time.monotonic() < deadline:
        frontend.poll(0.05)
    thread.join(5)
    assert done, "the outside calls did not return"
    return done[0]


def without_cache_marks(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return json.loads(json.dumps(messages).replace(', "cache_control": {"type": "ephemeral"}', ""))
