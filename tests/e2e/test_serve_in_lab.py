"""An outside agent works on the notebook open in JupyterLab + Chromium, through `%agent serve` (default mode).

The test process is the outside agent: the `mcp` SDK's own streamable-HTTP client, with the token the serve cell
printed. Its NotebookEdit on a cell of the open notebook asks the user twice over — the approval in the serve
cell's output and the pending edit drawn at the cell, as for the agent's own edits. Allow (in the serve cell)
changes the cell live in the page and never the file; Deny (at the cell) leaves the cell and the file byte for
byte as they were. A cell the user runs while an outside call waits for its answer runs after that call, never
in the middle of it.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import anyio
import httpx2
import mcp_types
from lab import (
    Lab,
    cell_output,
    cell_text,
    execution_counts,
    live_sources,
    notebook_with_ids,
    open_notebook,
    panel_js,
    run_cell,
    wait_cell_done,
    wait_for,
)
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

NAME = "served.ipynb"
CLIENT = "e2e-outside-agent"
TARGET = "total = 1"


class OutsideAgent(threading.Thread):
    """One client connection making `calls` in order, on a thread of its own (the page is driven meanwhile)."""

    def __init__(self, url: str, token: str, calls: list[tuple[str, dict[str, Any]]]) -> None:
        super().__init__(daemon=True)
        self.url, self.token, self.calls = url, token, calls
        self.results: list[mcp_types.CallToolResult] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            anyio.run(self._session)
        except BaseException as exc:  # reported by `finished`
            self.error = exc

    async def _session(self) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(120.0)) as http:
            transport = streamable_http_client(self.url, http_client=http)
            info = mcp_types.Implementation(name=CLIENT, version="1.0")
            async with Client(transport, client_info=info) as client:
                for name, arguments in self.calls:
                    result = await client.call_tool(name, arguments)
                    assert isinstance(result, mcp_types.CallToolResult)
                    self.results.append(result)

    def finished(self) -> list[mcp_types.CallToolResult]:
        self.join(90)
        assert not self.is_alive(), "the outside calls did not return"
        assert self.error is None, repr(self.error)
        return self.results


def text_of(result: mcp_types.CallToolResult) -> str:
    return "".join(part.text for part in result.content if isinstance(part, mcp_types.TextContent))


def edit(lab: Lab, new_source: str) -> list[tuple[str, dict[str, Any]]]:
    """A fresh read of the cell, then the edit (an edit needs the same client's read)."""
    notebook = str(lab.root / NAME)
    return [
        ("NotebookRead", {"notebook_path": notebook, "cell_id": "target"}),
        ("NotebookEdit", {"notebook_path": notebook, "cell_id": "target", "new_source": new_source}),
    ]


def target_json(page: Any) -> str:
    """The target cell as the page holds it (source, outputs, metadata, id)."""
    return page.evaluate(
        panel_js(
            NAME,
            "const cell = panel.content.model.sharedModel.cells.find(c => c.getId() === 'target');"
            " return JSON.stringify(cell.toJSON());",
        )
    )


def test_an_outside_edit_is_approved_at_the_serve_cell_and_at_its_cell_and_never_interleaves(
    page: Any, lab: Lab
) -> None:
    on_disk = notebook_with_ids(
        lab,
        NAME,
        [
            ("load", "%load_ext jupyter_agent\norder = []"),
            ("serve", "%agent serve"),
            ("target", TARGET),
            ("user", "order.append('user')"),
            ("check", "print(order)"),
        ],
    )
    open_notebook(page, lab, NAME)
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 1)
    wait_cell_done(page, 1)
    serve_output = cell_output(page, 1)
    serve_output.locator("text=outside call").wait_for(timeout=30_000)  # the board
    printed = serve_output.inner_text()
    url = re.search(r"^URL (http://127\.0\.0\.1:\d+/mcp)$", printed, re.M)
    token = re.search(r"^TOKEN (\S+)$", printed, re.M)
    assert url is not None and token is not None, printed
    approval = serve_output.locator(".jp-agent-approval")
    pending = page.locator(".jp-agent-pending[data-cell-id='target']")

    # 1. The edit asks in the serve cell and at the cell; Allow in the serve cell changes the page, not the file.
    outside = OutsideAgent(url.group(1), token.group(1), edit(lab, "total = 2"))
    outside.start()
    approval.wait_for(timeout=60_000)
    assert "NotebookEdit" in (approval.text_content() or "")
    pending.wait_for(state="attached", timeout=30_000)
    assert pending.locator(".jp-agent-pending-del").all_text_contents() == [TARGET]
    assert pending.locator(".jp-agent-pending-add").all_text_contents() == ["total = 2"]
    assert live_sources(page, NAME)[2] == TARGET  # asked, not changed
    approval.locator("button.jupyter-button:has-text('Allow once')").click()
    read, edited = outside.finished()
    assert not read.is_error and TARGET in text_of(read), text_of(read)
    assert not edited.is_error, text_of(edited)
    assert live_sources(page, NAME)[2] == "total = 2"
    assert (lab.root / NAME).read_bytes() == on_disk  # the file is the user's to save
    wait_for(lambda: pending.count() == 0 and approval.count() == 0, 15, "both questions to close")
    assert f"from {CLIENT}" in serve_output.inner_text()  # the call's card on the board

    # 2. A second edit, denied at the cell: the cell and the file stay byte for byte as they were.
    before = target_json(page)
    outside = OutsideAgent(url.group(1), token.group(1), edit(lab, "total = 0"))
    outside.start()
    pending.wait_for(state="attached", timeout=60_000)
    approval.wait_for(timeout=30_000)  # asked in the serve cell too
    pending.scroll_into_view_if_needed()
    pending.locator("button.jp-agent-pending-deny").click()
    _, denied = outside.finished()
    assert denied.is_error and "DENIED" in text_of(denied), text_of(denied)
    wait_for(lambda: pending.count() == 0 and approval.count() == 0, 15, "both questions to close")
    assert target_json(page) == before
    assert (lab.root / NAME).read_bytes() == on_disk

    # 3. The user runs a cell while an outside call waits for its answer: it runs after the call, not inside it.
    outside = OutsideAgent(url.group(1), token.group(1), [("RunCode", {"code": "order.append('outside')"})])
    outside.start()
    approval.wait_for(timeout=60_000)
    run_cell(page, 3)
    page.wait_for_timeout(1_000)  # time enough for the request to reach the kernel, which holds it back
    assert execution_counts(page, NAME)[3] is None
    approval.locator("button.jupyter-button:has-text('Allow once')").click()
    (ran,) = outside.finished()
    assert not ran.is_error, text_of(ran)
    wait_cell_done(page, 3)
    run_cell(page, 4)
    wait_cell_done(page, 4)
    assert cell_text(page, NAME, 4).strip().endswith("['outside', 'user']")
    assert (lab.root / NAME).read_bytes() == on_disk
