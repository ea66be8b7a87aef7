"""The live backend's Python side, against an in-process stand-in for the labextension (`FakePage`).

The real extension is TypeScript in a browser; `FakePage` speaks its protocol and answers on another
thread, as the kernel's main thread does. tests/kernel/test_live_notebook_bridge.py runs the same bridge
in a real ipykernel with a jupyter_client frontend.
"""

from __future__ import annotations

import asyncio
import threading
import time
from asyncio import run
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from notebook_testkit import FakePage, write_notebook

from jupyter_agent.base.errors import ToolError
from jupyter_agent.notebook.bridge import LiveBridge
from jupyter_agent.notebook.file_backend import FileNotebook
from jupyter_agent.notebook.frontend import KernelSignals
from jupyter_agent.notebook.live_backend import LiveNotebook
from jupyter_agent.notebook.ops import Delete, GetCells, Insert, NotebookError, OpResult, Replace, raise_for
from jupyter_agent.notebook.provider import NotebookProvider

T = TypeVar("T")


@pytest.fixture
def page() -> Iterator[FakePage]:
    page = FakePage()
    yield page
    page.stop()


@pytest.fixture
def kernel_nb(tmp_path: Path) -> Path:
    """This kernel's notebook on disk, as Jupyter Server names it (absolute, under the server root)."""
    (tmp_path / "work").mkdir()
    return write_notebook(tmp_path / "work" / "analysis.ipynb")


def provider_for(page: FakePage, kernel_nb: Path | None, **timeouts: float) -> NotebookProvider:
    bridge = LiveBridge(open_comm=lambda: page, notebook_path=str(kernel_nb or ""), **timeouts)
    return NotebookProvider(default_path=kernel_nb, bridge=bridge)


def test_the_comm_is_opened_with_the_kernels_notebook_path_and_protocol(
    page: FakePage, kernel_nb: Path
) -> None:
    run(provider_for(page, kernel_nb).open(None))
    assert page.opened == [{"notebook_path": str(kernel_nb), "protocol": 1}]


def test_when_the_page_greets_the_kernels_notebook_is_live(page: FakePage, kernel_nb: Path) -> None:
    book = run(provider_for(page, kernel_nb).open(None))
    assert isinstance(book, LiveNotebook)
    assert book.path == kernel_nb.resolve()


def test_live_edits_change_the_page_and_never_the_file(page: FakePage, kernel_nb: Path) -> None:
    on_disk = kernel_nb.read_bytes()

    async def scenario() -> list[str]:
        book = await provider_for(page, kernel_nb).open(str(kernel_nb))
        inserted = await book.insert("a1", "markdown", "# added")
        (edited,) = await book.apply([Replace(id="a1", source="a = 2", expect="a = 1")])
        raise_for(edited)
        return [c.source for c in await book.cells()] + [inserted.id or ""]

    sources = run(scenario())
    assert sources[:2] == ["a = 2", "# added"]
    assert [c["source"] for c in page.cells] == ["a = 2", "# added"]
    assert kernel_nb.read_bytes() == on_disk


def test_a_batch_is_one_request_with_one_result_per_op(page: FakePage, kernel_nb: Path) -> None:
    ops = [Insert(after_id=None, cell_type="code", source=f"n = {i}") for i in range(50)] + [GetCells()]
    results = run(run_batch(provider_for(page, kernel_nb), ops))
    assert len(page.requests) == 1 and len(results) == 51
    assert len(results[-1].cells) == 51


async def run_batch(provider: NotebookProvider, ops: list[Insert | GetCells]) -> list[OpResult]:
    return await (await provider.open(None)).apply(ops)


def test_requests_are_addressed_to_the_page_that_greeted(page: FakePage, kernel_nb: Path) -> None:
    run(run_batch(provider_for(page, kernel_nb), [GetCells()]))
    assert page.requests[0]["client_id"] == "page-1"
    assert page.requests[0]["type"] == "request" and page.requests[0]["ops"] == [{"op": "get_cells"}]


def test_the_user_typing_meanwhile_makes_the_edit_stale_in_the_page(page: FakePage, kernel_nb: Path) -> None:
    async def scenario() -> None:
        book = await provider_for(page, kernel_nb).open(None)
        page.cells[0]["source"] = "a = 1  # the user typed this"
        (edited,) = await book.apply([Replace(id="a1", source="a = 3", expect="a = 1")])
        raise_for(edited)

    with pytest.raises(NotebookError) as caught:
        run(scenario())
    assert caught.value.code == "STALE_READ" and caught.value.current == "a = 1  # the user typed this"
    assert page.cells[0]["source"] == "a = 1  # the user typed this"


def test_another_notebook_is_edited_as_a_file_even_when_this_one_is_live(
    page: FakePage, kernel_nb: Path, tmp_path: Path
) -> None:
    other = write_notebook(tmp_path / "other.ipynb")
    book = run(provider_for(page, kernel_nb).open(str(other)))
    assert isinstance(book, FileNotebook) and book.path == other.resolve()


def test_without_a_greeting_the_notebook_is_a_file_and_the_probe_is_not_repeated(kernel_nb: Path) -> None:
    silent = FakePage(answer=False)
    try:
        provider = provider_for(silent, kernel_nb, hello_timeout=0.05)
        first = run(provider.open(None))
        second = run(provider.open(None))
    finally:
        silent.stop()
    assert isinstance(first, FileNotebook) and isinstance(second, FileNotebook)
    assert len(silent.opened) == 1


def test_a_page_that_stops_answering_is_a_timeout_that_says_what_to_check(kernel_nb: Path) -> None:
    hung = FakePage(respond=False)
    try:
        provider = provider_for(hung, kernel_nb, request_timeout=0.05)
        with pytest.raises(ToolError) as caught:
            run(run_batch(provider, [GetCells()]))
    finally:
        hung.stop()
    assert caught.value.code == "TIMEOUT"
    assert caught.value.message == (
        "the notebook did not answer; is JupyterLab with the jupyter-agent extension open? It did not answer "
        "within 0.05 s, so the change may or may not have been made; call NotebookRead to see the notebook as "
        "it is now"
    )


def test_after_the_panel_closes_the_next_call_probes_again(page: FakePage, kernel_nb: Path) -> None:
    provider = provider_for(page, kernel_nb, hello_timeout=1.0)
    assert isinstance(run(provider.open(None)), LiveNotebook)
    page.close_panel()
    page.stop()  # the close is delivered before the thread ends
    page.answer = False
    assert provider.bridge is not None
    provider.bridge.hello_timeout = 0.05
    assert isinstance(run(provider.open(None)), FileNotebook)
    assert len(page.opened) == 2


def test_a_renamed_notebook_is_still_live_under_its_new_name(page: FakePage, kernel_nb: Path) -> None:
    async def scenario() -> Path:
        provider = provider_for(page, kernel_nb)
        await provider.open(None)
        page.rename("work/renamed.ipynb")
        await (await provider.open(None)).cells()  # the rename arrives before this answer
        return (await provider.open(None)).path

    assert run(scenario()) == kernel_nb.resolve().parent / "renamed.ipynb"


def test_a_page_speaking_another_protocol_is_not_used(kernel_nb: Path) -> None:
    class OldPage(FakePage):
        def open(self, data: dict[str, Any] | None = None) -> None:
            self.opened.append(dict(data or {}))
            self._inbox.put(
                lambda: self._deliver({"type": "hello", "path": "work/analysis.ipynb", "protocol": 9})
            )

    old = OldPage()
    on_disk = kernel_nb.read_bytes()
    try:
        provider = provider_for(old, kernel_nb)
        book = run(provider.open(None))
        access = run(provider.open_for_write(None))
    finally:
        old.stop()
    # Read from the saved file, and a change becomes a proposal that names the fix: never the page, never the file.
    assert isinstance(book, FileNotebook) and not old.requests
    assert access.decision.kind == "proposal" and "protocol 9" in access.decision.reason
    assert "upgrade jupyter-claude-agent, reload the page and restart the kernel" in access.decision.reason
    assert kernel_nb.read_bytes() == on_disk


def test_a_kernel_that_does_not_know_its_notebook_asks_for_a_path() -> None:
    provider = NotebookProvider(default_path=None)
    with pytest.raises(ToolError) as caught:
        run(provider.open(None))
    assert caught.value.code == "NOTEBOOK_NOT_FOUND"
    assert caught.value.message.endswith("pass notebook_path to work with a notebook file")


def test_replace_of_a_live_cell_by_id_that_does_not_exist(page: FakePage, kernel_nb: Path) -> None:
    async def scenario() -> None:
        book = await provider_for(page, kernel_nb).open(None)
        await book.apply([Replace(id="a1", source="a = 5", expect=None)])
        (edited,) = await book.apply([Replace(id="gone", source="x", expect=None)])
        raise_for(edited)

    with pytest.raises(NotebookError) as caught:
        run(scenario())
    assert caught.value.code == "CELL_NOT_FOUND"


def test_the_pages_cell_not_found_reaches_the_model_in_the_same_words_as_the_files(kernel_nb: Path) -> None:
    class TypeScriptWording(FakePage):
        def _respond(self, request: dict[str, Any]) -> None:
            message = "no cell with id 'gone' in work/analysis.ipynb; read the notebook again for current ids"
            results = [{"ok": False, "error": "CELL_NOT_FOUND", "message": message}]
            self._deliver({"type": "response", "request_id": request["request_id"], "results": results})

    page = TypeScriptWording()
    try:
        with pytest.raises(NotebookError) as caught:
            run(_delete_gone(provider_for(page, kernel_nb)))
    finally:
        page.stop()
    assert (
        caught.value.message
        == "no cell with id 'gone' in analysis.ipynb; call NotebookRead for the current ids"
    )


async def _delete_gone(provider: NotebookProvider) -> None:
    (result,) = await (await provider.open(None)).apply([Delete(id="gone", expect=None)])
    raise_for(result)


def test_a_panel_closed_while_a_request_waits_fails_it_at_once(kernel_nb: Path) -> None:
    hung = FakePage(respond=False)

    async def scenario() -> None:
        provider = provider_for(hung, kernel_nb, request_timeout=30)
        book = await provider.open(None)
        asyncio.get_running_loop().call_later(0.05, hung.close_panel)
        await book.cells()

    try:
        with pytest.raises(ToolError) as caught:
            run(scenario())
    finally:
        hung.stop()
    assert caught.value.code == "NOT_AVAILABLE"
    assert caught.value.message.startswith("the notebook was closed in JupyterLab before it answered")


def test_a_hello_that_comes_after_the_wait_still_makes_the_notebook_live(kernel_nb: Path) -> None:
    late = FakePage(answer=False)
    try:
        provider = provider_for(late, kernel_nb, hello_timeout=0.05)
        assert isinstance(run(provider.open(None)), FileNotebook)  # no page yet: its saved file
        hello = {"type": "hello", "path": "work/analysis.ipynb", "protocol": 1, "client_id": "page-1"}
        late._inbox.put(lambda: late._deliver(hello))
        assert provider.bridge is not None
        deadline = time.monotonic() + 10
        while provider.bridge.current_hello() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert isinstance(run(provider.open(None)), LiveNotebook)
        assert len(late.opened) == 1  # the same comm: no second wait, no second probe
    finally:
        late.stop()


def test_a_comm_silent_for_a_while_is_closed_and_opened_afresh(kernel_nb: Path) -> None:
    silent = FakePage(answer=False)
    try:
        provider = provider_for(silent, kernel_nb, hello_timeout=0.01, reprobe_after=0.0)
        run(provider.open(None))
        run(provider.open(None))
    finally:
        silent.stop()
    assert len(silent.opened) == 2 and silent.closed_by_kernel


def _within(seconds: float, work: Callable[[], T]) -> T:
    """`work()`'s value; fails when it has not returned after `seconds` (it waits for something that never
    comes: the thread is left behind as a daemon)."""
    done: list[T] = []
    thread = threading.Thread(target=lambda: done.append(work()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert done, f"still waiting after {seconds} s"
    return done[0]


def greet(page: FakePage) -> None:
    hello = {"type": "hello", "path": "work/analysis.ipynb", "protocol": 1, "client_id": "page-1"}
    page._inbox.put(lambda: page._deliver(hello))


def test_a_run_starts_without_waiting_for_a_page_that_has_not_greeted_and_takes_its_late_greeting(
    kernel_nb: Path, tmp_path: Path
) -> None:
    late = FakePage(answer=False)
    try:
        provider = provider_for(late, kernel_nb, hello_timeout=120)
        signals = KernelSignals(in_kernel=True, cwd=tmp_path, session_name=str(kernel_nb))
        frontend = _within(10, lambda: run(provider.refresh(signals)))
        assert not frontend.live and len(late.opened) == 1  # the comm is open; the run did not wait on it
        greet(late)
        assert provider.bridge is not None
        deadline = time.monotonic() + 10
        while provider.bridge.current_hello() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert isinstance(run(provider.open(None)), LiveNotebook)
        assert len(late.opened) == 1
    finally:
        late.stop()


def test_the_comm_opened_at_load_is_greeted_before_the_first_run_which_finds_the_page_live(
    page: FakePage, kernel_nb: Path, tmp_path: Path
) -> None:
    provider = provider_for(page, kernel_nb, hello_timeout=120)
    assert provider.bridge is not None
    provider.bridge.open_early()
    deadline = time.monotonic() + 10
    while provider.bridge.current_hello() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    signals = KernelSignals(in_kernel=True, cwd=tmp_path, session_name=str(kernel_nb))
    assert run(provider.refresh(signals)).live
    assert len(page.opened) == 1


def test_once_a_comm_stayed_silent_no_later_probe_waits_for_a_greeting(kernel_nb: Path) -> None:
    """A widget frontend without the extension: one short wait, then never again (a probe every
    `reprobe_after` used to wait `hello_timeout` each time)."""
    silent = FakePage(answer=False)
    try:
        provider = provider_for(silent, kernel_nb, hello_timeout=0.05, reprobe_after=0.0)
        assert isinstance(run(provider.open(None)), FileNotebook)
        assert provider.bridge is not None
        provider.bridge.hello_timeout = 120
        again = _within(10, lambda: run(provider.open(None)))
        assert isinstance(again, FileNotebook) and len(silent.opened) == 2  # probed afresh, not waited on
    finally:
        silent.stop()
