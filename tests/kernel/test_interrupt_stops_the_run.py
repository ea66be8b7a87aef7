"""Interrupt stops the run, always, in a real kernel: nothing the run had planned runs afterwards, a change
that lands is reported as landed, and the cell never returns while its run is still going.

Each test repeats its scenario: the failures these guard were races (a cancellation arriving together with
the main thread's reply was dropped; a Write's thread replaced the file after the cancel)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from frontend import AgentKernel, Execution, KernelFrontend, result_text, tool_results

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

REPEATS = 5
#: Characters per streamed delta of the large Write: streamed in a second, so the Interrupt meets the Write itself,
#: the request after it or the stream, not only the stream (16 characters a delta took 20 to 60 s for 2 MB).
WRITE_CHUNK = 1 << 16


def last_user_texts(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    return " ".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def scripted(plan: list[Turn]) -> Any:
    """`plan` by request index; any request whose last message asks to "carry on" gets "resumed"."""

    def answer(body: dict[str, Any], index: int) -> Turn:
        if "carry on" in last_user_texts(body):
            return Turn(blocks=[Text("resumed")])
        return plan[index]

    return answer


def interrupted(cell: Execution) -> bool:
    return (
        cell.reply is not None
        and cell.reply["status"] == "error"
        and cell.reply["ename"] == "KeyboardInterrupt"
    )


def carry_on(frontend: KernelFrontend) -> Execution:
    follow = frontend.run("%%agent\ncarry on", timeout=60)
    assert "resumed" in follow.text(), follow.text()
    assert "already in progress" not in follow.text()
    return follow


@pytest.mark.parametrize("attempt", range(REPEATS))
def test_interrupt_during_runcode_stops_the_run_and_reports_the_code_as_interrupted(
    agent_kernel: AgentKernel, tmp_path: Path, attempt: int
) -> None:
    # the file is the sign that the print is done: an interrupt that came between them would find no output
    sleeper = "print('before the sleep')\nopen('started', 'w').close()\nimport time\ntime.sleep(120)"
    plan = [
        Turn(blocks=[ToolUse(name="RunCode", input={"code": sleeper})]),
        Turn(blocks=[ToolUse(name="Write", input={"file_path": "after.txt", "content": "must not exist\n"})]),
        Turn(blocks=[ToolUse(name="RunCode", input={"code": "open('ran-again', 'w').close()"})]),
        Turn(blocks=[Text("all done")]),
    ]
    frontend, server = agent_kernel(scripted(plan))
    cell = frontend.execute("%%agent --mode bypassPermissions\nrun the slow code")
    frontend.wait(lambda: (tmp_path / "started").exists(), 60, "the code to start")
    frontend.km.interrupt_kernel()
    frontend.wait(lambda: cell.done, 30, "the interrupted cell")
    assert interrupted(cell), cell.reply
    carry_on(frontend)
    assert len(server.requests) == 2, [last_user_texts(r) for r in server.requests]
    assert not (tmp_path / "after.txt").exists() and not (tmp_path / "ran-again").exists()
    [result] = tool_results(server.requests[1])
    text = result_text(result)
    assert result["is_error"] and text.startswith(
        "INTERRUPTED: the user interrupted the code (KeyboardInterrupt)"
    )
    assert "before the sleep" in text
    assert "[The user interrupted this run.]" in last_user_texts(server.requests[1])


def big_text(tag: str, lines: int = 40_000) -> str:
    return "".join(f"{tag} line {n:06d}: {'x' * 20} {n * 7919 % 10007}\n" for n in range(lines))


@pytest.mark.parametrize("attempt", range(REPEATS))
def test_interrupt_during_a_large_write_never_lands_after_the_model_is_told_it_did_not(
    agent_kernel: AgentKernel, tmp_path: Path, attempt: int
) -> None:
    before = big_text("old")
    (tmp_path / "big.txt").write_text(before)
    plan = [
        Turn(blocks=[ToolUse(name="Read", input={"file_path": "big.txt", "limit": 1})]),
        Turn(
            blocks=[ToolUse(name="Write", input={"file_path": "big.txt", "content": big_text("new")})],
            chunk_size=WRITE_CHUNK,
        ),
        Turn(blocks=[Text("written")]),
    ]
    frontend, server = agent_kernel(scripted(plan))
    cell = frontend.execute("%%agent --mode bypassPermissions\nrewrite big.txt")
    frontend.wait(lambda: "Write big.txt" in cell.text(), 60, "the Write to start")
    frontend.km.interrupt_kernel()
    frontend.wait(lambda: cell.done, 30, "the interrupted cell")
    at_return = (tmp_path / "big.txt").read_text()
    carry_on(frontend)
    assert (tmp_path / "big.txt").read_text() == at_return  # nothing landed after the cell returned
    if at_return != before:
        assert at_return == big_text("new")
    assert_told_truthfully(write_result(server.requests), at_return == before)


def assert_told_truthfully(told: str, untouched: bool) -> None:
    """The model is told what happened to the interrupted Write: not run (or cut) when the file is as it was,
    written when it is whole."""
    if untouched:
        assert told.startswith(
            (
                "INTERRUPTED: interrupted by the user before it finished",
                "INTERRUPTED: not run: the user stopped",
            )
        ), told
    else:
        assert told.startswith(
            (
                "INTERRUPTED: interrupted by the user after its change was made: 'big.txt' was written",
                "Replaced the content of 'big.txt'",  # the Write had finished when the interrupt came
            )
        ), told


def write_result(requests: list[dict[str, Any]]) -> str:
    """What the model was told of the Write (the second turn's call), in whichever request carried it."""
    for body in requests[2:]:
        for message in body["messages"]:
            for block in message["content"] if isinstance(message["content"], list) else []:
                if block.get("type") == "tool_result" and block.get("tool_use_id") == "toolu_01_1_0":
                    return result_text(block)
    raise AssertionError("no request told the model what became of the Write")


def processes_naming(text: str) -> list[int]:
    """Processes whose command line mentions `text`."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_interrupting_a_grep_that_cannot_finish_ends_the_run_and_the_next_cells_work(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    fifo = tmp_path / f"stuck-{os.getpid()}.fifo"
    os.mkfifo(fifo)  # rg blocks reading a FIFO nobody writes: a search that never ends by itself
    grep = Turn(blocks=[ToolUse(name="Grep", input={"pattern": "needle", "path": fifo.name})])
    frontend, server = agent_kernel(scripted([grep] * 20))
    for attempt in range(5):
        cell = frontend.execute(f"%%agent\nsearch the pipe ({attempt})")
        frontend.wait(lambda: bool(processes_naming(fifo.name)), 60, "rg to start")
        frontend.km.interrupt_kernel()
        frontend.wait(lambda cell=cell: cell.done, 30, "the interrupted cell")
        assert interrupted(cell), cell.reply
        assert processes_naming(fifo.name) == []  # the cell returned after the search was killed
        carry_on(frontend)
    assert len(server.requests) == 10
