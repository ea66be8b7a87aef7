"""`%%agent` in a real kernel: approvals clicked while the cell is busy, Run All order, interrupt, headless."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import pytest
from frontend import AgentKernel, context_text, result_text, tool_results

from jupyter_agent.testing import TEST_API_KEY, Text, ToolUse, Turn

pytestmark = pytest.mark.kernel


def write_then_answer(path: str = "notes.md", content: str = "# Notes\n") -> list[Turn]:
    return [
        Turn(
            blocks=[
                Text("I'll write the notes."),
                ToolUse(name="Write", input={"file_path": path, "content": content}),
            ]
        ),
        Turn(blocks=[Text("Done: **notes written**.")]),
    ]


def test_allow_once_runs_the_write_while_the_cell_is_busy(agent_kernel: AgentKernel, tmp_path: Path) -> None:
    frontend, server = agent_kernel(write_then_answer())
    cell = frontend.execute("%%agent\nwrite notes")
    frontend.click("Allow once")
    frontend.wait(lambda: cell.done, 60, "the agent cell")
    assert cell.reply is not None and cell.reply["status"] == "ok"
    assert (tmp_path / "notes.md").read_text() == "# Notes\n"
    text = cell.text()
    assert "✅ Write notes.md: allowed once" in text
    assert "✏️ Write notes.md" in text and "[done" in text
    assert "Done: **notes written**." in text
    assert "Wrote notes.md" in cell.html() or "+1" in text
    assert not tool_results(server.requests[1])[0].get("is_error")
    assert TEST_API_KEY not in text + cell.html()


def test_the_session_context_names_ipykernels_own_version(agent_kernel: AgentKernel) -> None:
    frontend, server = agent_kernel([Turn(blocks=[Text("hi")])])
    cell = frontend.execute("%%agent\nsay hi")
    frontend.wait(lambda: cell.done, 60, "the agent cell")
    assert f"ipykernel {version('ipykernel')} · Python" in context_text(server.requests[0])
    assert "ipykernel" not in str(server.requests[0]["system"])  # a fact that changes stays out of the prefix
    assert version("ipykernel") != version("ipython")


def test_deny_with_a_message_leaves_the_file_alone_and_tells_the_model(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, server = agent_kernel(write_then_answer())
    cell = frontend.execute("%%agent\nwrite notes")
    frontend.wait(lambda: bool(frontend.buttons("Deny with message")), 30, "the approval")
    frontend.set_text("Tell the agent", "use docs/notes.md instead")
    frontend.click("Deny with message")
    frontend.wait(lambda: cell.done, 60, "the agent cell")
    assert not (tmp_path / "notes.md").exists()
    block = tool_results(server.requests[1])[0]
    assert block["is_error"] is True
    assert result_text(block) == "DENIED: Write: use docs/notes.md instead"
    assert "🚫 Write notes.md: denied — “use docs/notes.md instead”" in cell.text()


def test_always_allow_adds_a_session_rule_and_the_next_run_does_not_ask(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    script = write_then_answer("a.md", "a\n") + write_then_answer("b.md", "b\n")
    frontend, _ = agent_kernel(script)
    first = frontend.execute("%%agent\nwrite a")
    frontend.click("Always allow")
    frontend.wait(lambda: first.done, 60, "the first run")
    asks_before = len(frontend.buttons("Allow once"))
    second = frontend.run("%%agent\nwrite b", timeout=60)
    assert (tmp_path / "b.md").read_text() == "b\n"
    assert len(frontend.buttons("Allow once")) == asks_before
    assert "✅ Write b.md" not in second.text()
    status = frontend.run("%agent status").text()
    assert "allow Write  (AgentMagics.allow (%config, %agent allow, Always allow))" in status


def test_run_all_keeps_cell_order_while_the_agent_waits(agent_kernel: AgentKernel, tmp_path: Path) -> None:
    frontend, _ = agent_kernel(write_then_answer())
    agent_cell = frontend.execute("%%agent\nwrite notes")
    after = frontend.execute("import pathlib; print('after sees', pathlib.Path('notes.md').exists())")
    frontend.click("Allow once")
    frontend.wait(lambda: after.done, 60, "the cell after the agent")
    assert agent_cell.done
    assert "after sees True" in after.text()
    assert agent_cell.reply is not None and after.reply is not None
    assert agent_cell.reply["execution_count"] < after.reply["execution_count"]


def test_interrupt_while_waiting_for_approval_then_the_next_run_continues(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    script = [*write_then_answer()[:1], Turn(blocks=[Text("Picking up where we left off.")])]
    frontend, server = agent_kernel(script)
    cell = frontend.execute("%%agent\nwrite notes")
    frontend.wait(lambda: bool(frontend.buttons("Allow once")), 30, "the approval")
    frontend.km.interrupt_kernel()
    frontend.wait(lambda: cell.done, 30, "the interrupted cell")
    assert (
        cell.reply is not None
        and cell.reply["status"] == "error"
        and cell.reply["ename"] == "KeyboardInterrupt"
    )
    assert not (tmp_path / "notes.md").exists()
    assert "interrupted" in cell.text()
    follow = frontend.run("%%agent\ncarry on", timeout=60)
    assert "Picking up where we left off." in follow.text()
    interrupted = tool_results(server.requests[1])
    assert interrupted and interrupted[0]["is_error"] and "INTERRUPTED" in result_text(interrupted[0])


def test_the_stop_button_stops_a_streaming_answer_cleanly(agent_kernel: AgentKernel) -> None:
    slow = Turn(blocks=[Text("word " * 400)], delay=0.02, chunk_size=5)
    frontend, _ = agent_kernel([slow, Turn(blocks=[Text("fresh answer")])])
    cell = frontend.execute("%%agent\ntalk a lot")
    frontend.wait(lambda: "word word" in cell.text(), 30, "streamed text")
    frontend.click("Stop")
    frontend.wait(lambda: cell.done, 30, "the stopped cell")
    assert cell.reply is not None and cell.reply["status"] == "ok"
    assert "⏹ Stopped by you" in cell.text() and "stopped: interrupted" not in cell.text()
    assert "fresh answer" in frontend.run("%%agent\nagain", timeout=60).text()


def test_headless_asks_become_denials_that_name_the_rule(agent_kernel: AgentKernel, tmp_path: Path) -> None:
    frontend, server = agent_kernel(write_then_answer(), headless=True)
    cell = frontend.run("%%agent\nwrite notes", timeout=60)
    assert cell.reply is not None and cell.reply["status"] == "ok"
    assert not (tmp_path / "notes.md").exists()
    text = result_text(tool_results(server.requests[1])[0])
    assert text.startswith("DENIED: Write: no one could approve Write notes.md")
    assert "%agent allow Write" in text and "--mode acceptEdits" in text


def test_a_tool_defined_in_a_cell_is_registered_and_replaced_when_rerun(agent_kernel: AgentKernel) -> None:
    script = [
        Turn(blocks=[ToolUse(name="shout", input={"text": "hi"})]),
        Turn(blocks=[Text("ok")]),
    ]
    frontend, server = agent_kernel(script)
    define = 'import jupyter_agent\n@jupyter_agent.tool(read_only=True)\ndef shout(text: str) -> str:\n    """{doc}"""\n    return text.upper() + "{suffix}"\n'
    frontend.run(define.format(doc="Shout it.", suffix="!"))
    frontend.run(define.format(doc="Shout it louder.", suffix="!!"))
    tools = frontend.run("%agent tools").text()
    assert "shout" in tools and "Shout it louder." in tools and tools.count("shout") == 1
    frontend.run("%%agent\nshout hi", timeout=60)
    assert result_text(tool_results(server.requests[1])[0]) == "HI!!"
    sent = [t for t in server.requests[0]["tools"] if t["name"] == "shout"]
    assert sent[0]["description"] == "Shout it louder."


def test_history_lists_each_runs_changes_and_undo_reverts_the_last_run_then_the_one_before(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    script = [
        Turn(blocks=[ToolUse(name="Read", input={"file_path": "a.txt"})]),
        Turn(
            blocks=[
                ToolUse(name="Edit", input={"file_path": "a.txt", "old_string": "one", "new_string": "two"})
            ]
        ),
        Turn(blocks=[Text("edited")]),
        Turn(blocks=[ToolUse(name="Write", input={"file_path": "b.txt", "content": "new\n"})]),
        Turn(blocks=[Text("created")]),
    ]
    frontend, _ = agent_kernel(script)
    frontend.run("%%agent --mode acceptEdits\nedit a", timeout=60)
    frontend.run("%%agent --mode acceptEdits\ncreate b", timeout=60)
    assert (tmp_path / "a.txt").read_text() == "two\n" and (tmp_path / "b.txt").exists()
    history = frontend.run("%agent history").text()
    assert "run 1: edit a\n    Edit: changed a.txt" in history
    assert "run 2: create b\n    Write: created b.txt" in history
    assert "removed b.txt" in frontend.run("%agent undo").text()
    assert not (tmp_path / "b.txt").exists() and (tmp_path / "a.txt").read_text() == "two\n"
    assert "restored a.txt" in frontend.run("%agent undo").text()
    assert (tmp_path / "a.txt").read_text() == "one\n"
    assert "nothing to undo" in frontend.run("%agent undo").text()
    assert "(undone)" in frontend.run("%agent history").text()
