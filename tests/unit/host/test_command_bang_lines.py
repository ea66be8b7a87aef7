"""`%agent /name` in a real IPython shell against the scripted server: a command's `` !`cmd` `` output and
`@file` text are in the request as Claude Code puts them there; a project's `!` waits for `%agent trust`, and a
`!` no rule allows stops the command with one line before anything is sent."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_testkit import texts
from IPython.core.error import UsageError
from project_shell_kit import ProjectShell, Serve

from jupyter_agent.testing import Text, Turn

STATUS = (
    "---\nallowed-tools: Bash(ls:*), Bash(wc:*), Read\n---\n"
    "Files: !`ls data`\nLines: !`wc -l data/a.csv`\nPlan in @plan.md. Summarise for $1.\n"
)
FILES = {".claude/commands/status.md": STATUS, "data/a.csv": "x\n1\n2\n", "plan.md": "count rows\n"}
ALLOW = {"permissions": {"allow": ["Bash(ls:*)", "Bash(wc:*)"]}}


def test_a_trusted_commands_bang_lines_and_file_references_fill_the_request(
    project_shell: ProjectShell, serve: Serve
) -> None:
    shell = project_shell({**FILES, ".claude/settings.json": ALLOW})
    shell.run_line_magic("config", "AgentMagics.enable_bash = True")
    server = serve([Turn(blocks=[Text("Done.")])])
    shell.run_line_magic("agent", "trust")
    shell.run_line_magic("agent", "/status Ana")
    (request,) = server.requests
    sent = texts(request["messages"][-1])[0]
    assert sent.startswith("Files: a.csv\nLines: 3 data/a.csv\nPlan in @plan.md. Summarise for Ana.\n")
    assert "Contents of @plan.md:" in sent and "count rows" in sent
    assert "!`" not in sent


def test_an_untrusted_projects_bang_lines_run_nothing(project_shell: ProjectShell, serve: Serve) -> None:
    shell = project_shell({**FILES, ".claude/commands/mark.md": "Mark: !`touch marked.txt`\n"})
    shell.run_line_magic("config", "AgentMagics.enable_bash = True")
    server = serve([])
    with pytest.raises(
        UsageError,
        match=r"the command /mark: its !`…` lines run nothing until you trust this project: run %agent trust",
    ):
        shell.run_line_magic("agent", "/mark")
    assert not Path("marked.txt").exists() and server.requests == []


def test_a_bang_line_no_rule_allows_is_refused_before_anything_is_sent(
    project_shell: ProjectShell, serve: Serve
) -> None:
    shell = project_shell(
        {".claude/commands/mark.md": "---\nallowed-tools: Bash\n---\nMark: !`touch marked.txt`\n"}
    )
    shell.run_line_magic("config", "AgentMagics.enable_bash = True")
    server = serve([])
    shell.run_line_magic("agent", "trust")
    with pytest.raises(UsageError) as refused:
        shell.run_line_magic("agent", "/mark")
    assert str(refused.value).startswith(
        "the command /mark: !`touch marked.txt` was not run, so nothing was sent: "
    )
    assert "%agent allow Bash(touch marked.txt)" in str(refused.value)
    assert not Path("marked.txt").exists() and server.requests == []
