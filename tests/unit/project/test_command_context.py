"""A command's `` !`cmd` `` and `@file` are filled in through the real tool gate (Dispatcher, Bash in its sandbox,
Read in the roots), with nobody to ask: what would ask is refused, naming the rule that would allow it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import ToolHarness

from jupyter_agent.base.result import ToolResult
from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.builtin_tools.shell import bash_tool
from jupyter_agent.permissions.policy import Rule, ToolScope
from jupyter_agent.project.command_context import ContextRefused, fill_in

OWNER = "the command /status"


def _fill(harness: ToolHarness, text: str) -> str:
    async def run_tool(name: str, tool_input: dict[str, Any]) -> ToolResult:
        return await harness.acall(name, tool_input)

    return asyncio.run(fill_in(text, run_tool, cwd=harness.root, owner=OWNER))


def _harness(root: Path, **kw: Any) -> ToolHarness:
    return ToolHarness(root, [bash_tool(), *file_tools()], **kw)


def test_a_bang_command_allowed_by_a_rule_is_replaced_by_its_output(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    text = "Files here: !`ls` and the header: !`head -n 1 data.csv`\nSummarize them."
    filled = _fill(_harness(tmp_path, allow=["Bash(ls)", "Bash(head:*)"]), text)
    assert filled == "Files here: data.csv and the header: a,b\nSummarize them."


def test_a_bang_command_no_rule_allows_is_refused_naming_the_rule_and_does_not_run(tmp_path: Path) -> None:
    with pytest.raises(ContextRefused) as refused:
        _fill(_harness(tmp_path), "Context: !`touch made.txt`")
    message = str(refused.value)
    assert message.startswith(f"{OWNER}: !`touch made.txt` was not run, so nothing was sent: ")
    assert "Bash(touch made.txt)" in message and "\n" not in message
    assert not (tmp_path / "made.txt").exists()


def test_a_bang_command_outside_the_commands_allowed_tools_is_refused(tmp_path: Path) -> None:
    scope = ToolScope(rules=(Rule.parse("Bash(git status:*)"),), owner=OWNER)
    with pytest.raises(
        ContextRefused, match=r"outside the allowed-tools of the command /status \(Bash\(git status:\*\)\)"
    ):
        _fill(_harness(tmp_path, allow=["Bash"], scope=scope), "!`touch made.txt`")
    assert not (tmp_path / "made.txt").exists()


def test_a_deny_rule_refuses_a_bang_command_even_under_an_allow_rule(tmp_path: Path) -> None:
    with pytest.raises(ContextRefused, match=r"denied by the rule Bash\(rm:\*\)"):
        _fill(_harness(tmp_path, allow=["Bash"], deny=["Bash(rm:*)"]), "!`rm -f keep.txt`")


def test_a_failing_bang_command_puts_its_exit_in_place(tmp_path: Path) -> None:
    filled = _fill(_harness(tmp_path, allow=["Bash(cat:*)"]), "Log: !`cat missing.log`")
    assert filled.startswith("Log: EXECUTION_ERROR: the command exited with code 1")
    assert "missing.log" in filled


def test_a_file_reference_adds_the_files_text_and_leaves_other_at_signs(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "plan.md").write_text("step one\nstep two\n")
    text = "Follow @notes/plan.md, mail me@example.com, ask @nobody."
    filled = _fill(_harness(tmp_path, mode="bypassPermissions"), text)
    assert filled.startswith(text + "\n\nContents of @notes/plan.md:\n```\n")
    assert "step one" in filled and "step two" in filled
    assert filled.count("Contents of") == 1


def test_a_file_reference_outside_the_roots_is_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "project", tmp_path / "elsewhere"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("not yours\n")
    with pytest.raises(ContextRefused) as refused:
        _fill(_harness(root), f"Read @{outside / 'secret.txt'}")
    assert str(refused.value).startswith(
        f"{OWNER}: @{outside / 'secret.txt'} was not read, so nothing was sent: "
    )
    assert "not yours" not in str(refused.value)


def test_a_read_deny_rule_refuses_a_file_reference(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key.txt").write_text("hunter2\n")
    with pytest.raises(ContextRefused, match=r"denied by the rule Read\(secrets/\*\*\)"):
        _fill(_harness(tmp_path, deny=["Read(secrets/**)"]), "Use @secrets/key.txt")
