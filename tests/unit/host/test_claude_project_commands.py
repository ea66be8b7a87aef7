"""A Claude Code project in a real IPython shell, against the scripted server: `%load_ext` with a broken settings
file, `%agent rules` / `status` / `skills` / `trust`, `%agent /command args`, and rules that are enforced."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from agent_testkit import texts
from IPython.core.error import UsageError
from project_shell_kit import ProjectShell

from jupyter_agent.agent.config import DEFAULT_MODEL
from jupyter_agent.builtin_tools.kernel.guards import CREDENTIAL_HIDDEN
from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn

SECRET = "the launch code is swordfish-4471"


SETTINGS = {
    "permissions": {
        "allow": ["Edit(notes.md)"],
        "ask": ["Bash(git push:*)"],
        "deny": ["Read(secret.txt)"],
    }
}


def test_a_broken_settings_file_is_one_line_at_load_and_the_rest_loads(
    project_shell: ProjectShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell = project_shell(
        {
            ".claude/settings.json": '{"permissions": {"deny": ["Read(secret.txt)"]',
            ".claude/settings.local.json": {"permissions": {"deny": ["Edit(ci/**)"], "ask": "Bash"}},
        }
    )
    out = capsys.readouterr().out.splitlines()
    project = Path.cwd()
    assert out == [
        f"jupyter_agent: {project}/.claude/settings.json: (file): not valid JSON (line 1, column 46: Expecting ',' "
        "delimiter); it was not loaded",
        f"jupyter_agent: {project}/.claude/settings.local.json: permissions.ask: expected a list of strings, got "
        "str; ignored",
    ]
    shell.run_line_magic("agent", "rules")
    rules = capsys.readouterr().out
    assert f"deny  Edit(ci/**)  → Edit({project}/ci/**)  ({project}/.claude/settings.local.json)" in rules


def test_rules_and_status_show_each_rule_with_where_it_came_from(
    project_shell: ProjectShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell = project_shell({".claude/settings.json": SETTINGS})
    shell.run_line_magic("agent", "deny WebFetch")
    capsys.readouterr()
    shell.run_line_magic("agent", "rules")
    lines = capsys.readouterr().out.splitlines()
    source = f"{Path.cwd()}/.claude/settings.json"
    assert lines[:5] == [
        f"deny  Read(secret.txt)  → Read({Path.cwd()}/**/secret.txt)  ({source})",
        "deny  WebFetch  (AgentMagics.deny (%config, %agent deny))",
        f"ask   Bash(git push:*)  ({source})",
        f"allow Edit(notes.md)  ({source} — not applied until %agent trust)",
        "Order: deny → ask → mode → allow; a deny always wins. project "
        f"{Path.cwd()}: not trusted (%agent trust applies its hooks and allow rules)",
    ]
    shell.run_line_magic("agent", "trust")
    assert capsys.readouterr().out.startswith(f"trusted {Path.cwd()} (recorded in ")
    shell.run_line_magic("agent", "status")
    status = capsys.readouterr().out
    assert f"allow Edit(notes.md)  → Edit({Path.cwd()}/**/notes.md)  ({source})" in status
    assert "not applied" not in status


def test_a_deny_rule_from_the_settings_keeps_the_secret_out_of_every_request(
    project_shell: ProjectShell,
    serve: Callable[[list[Turn]], ScriptedServer],
    capsys: pytest.CaptureFixture[str],
) -> None:
    shell = project_shell({".claude/settings.json": SETTINGS, "secret.txt": SECRET, "notes.md": "notes\n"})
    server = serve(
        [
            Turn(
                blocks=[
                    ToolUse(name="Read", input={"file_path": "secret.txt"}),
                    ToolUse(name="Read", input={"file_path": "./sub/../secret.txt"}),
                    ToolUse(name="Grep", input={"pattern": "swordfish", "output_mode": "content"}),
                ]
            ),
            Turn(blocks=[Text("I cannot read it.")]),
        ]
    )
    shell.run_cell_magic("agent", "", "what is the launch code?")
    results = server.requests[1]["messages"][-1]["content"]
    assert [r.get("is_error", False) for r in results] == [True, True, False]
    assert "is denied by the rule Read(" in results[0]["content"][0]["text"]
    assert "[1 path was hidden by a deny rule.]" in results[2]["content"][0]["text"]
    assert all("swordfish-4471" not in json.dumps(body) for body in server.requests)
    assert "swordfish-4471" not in capsys.readouterr().out


def test_skills_lists_skills_commands_and_agents(
    project_shell: ProjectShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell = project_shell(
        {
            ".claude/skills/summarize/SKILL.md": "---\ndescription: Summarise a CSV\nallowed-tools: Read\n---\nx\n",
            ".claude/commands/review.md": "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1.\n",
            ".claude/agents/reviewer.md": "---\ndescription: Reviews diffs\ntools: Read, Grep\n---\nReview.\n",
        }
    )
    capsys.readouterr()
    shell.run_line_magic("agent", "skills")
    assert capsys.readouterr().out.splitlines() == [
        "/summarize               skill (project) · allowed-tools: Read: Summarise a CSV",
        "/review FILE             command (project): Review a file",
        "reviewer                 sub-agent · Read, Grep · same model: Reviews diffs",
        "%agent /name args runs a skill or command; sub-agents are Task's subagent_type",
    ]


def test_a_command_runs_its_body_with_its_model_and_only_its_tools(
    project_shell: ProjectShell, serve: Callable[[list[Turn]], ScriptedServer]
) -> None:
    shell = project_shell(
        {
            ".claude/commands/review.md": "---\nallowed-tools: Read\nmodel: opus\n---\nReview $1, focus on $2.\n",
            "app.py": "print('hi')\n",
        }
    )
    server = serve(
        [
            Turn(blocks=[ToolUse(name="Write", input={"file_path": "app.py", "content": "x"})]),
            Turn(blocks=[Text("Reviewed.")]),
        ]
    )
    shell.run_line_magic("agent", "trust")  # a trusted project's command chooses its model (from a reset on)
    shell.run_line_magic("agent", "reset")
    shell.run_line_magic("agent", '/review app.py "error handling"')
    first, second = server.requests
    assert texts(first["messages"][-1])[0] == "Review app.py, focus on error handling."
    assert first["model"] == "claude-opus-5-5"
    (refused,) = second["messages"][-1]["content"]
    assert "Write is outside the allowed-tools of the command /review (Read)" in refused["content"][0]["text"]
    assert Path("app.py").read_text() == "print('hi')\n"


def test_an_untrusted_projects_command_runs_on_the_sessions_model_and_says_why(
    project_shell: ProjectShell,
    serve: Callable[[list[Turn]], ScriptedServer],
    capsys: pytest.CaptureFixture[str],
) -> None:
    shell = project_shell({".claude/commands/review.md": "---\nmodel: opus\n---\nReview $1.\n"})
    server = serve([Turn(blocks=[Text("Reviewed.")])])
    shell.run_line_magic("agent", "/review app.py")
    (request,) = server.requests
    assert request["model"] == DEFAULT_MODEL
    assert (
        "model: 'opus' is not used: an untrusted project does not choose the model" in capsys.readouterr().out
    )


def test_a_mention_in_a_repositorys_command_or_skill_never_attaches_a_credentials_value(
    project_shell: ProjectShell, serve: Callable[[list[Turn]], ScriptedServer]
) -> None:
    shell = project_shell(
        {
            ".claude/commands/deploy.md": "Deploy, logging in with @api_token.\n",
            ".claude/skills/ship/SKILL.md": "---\ndescription: Ship it\n---\nShip it; the key is @api_token.\n",
        }
    )
    shell.user_ns["api_token"] = "plain-not-in-env-0123456789"
    server = serve([Turn(blocks=[Text("Deployed.")]), Turn(blocks=[Text("Shipped.")])])
    shell.run_line_magic("agent", "/deploy")
    shell.run_line_magic("agent", "/ship")
    sent = json.dumps(server.requests)
    assert "plain-not-in-env-0123456789" not in sent
    assert sent.count("api_token: str, shape/len 27") >= 2 and CREDENTIAL_HIDDEN in sent


def test_an_unknown_command_lists_the_commands_there_are(project_shell: ProjectShell) -> None:
    shell = project_shell({".claude/commands/tidy.md": "Tidy.\n"})
    with pytest.raises(UsageError, match="%agent /nope: no command or skill by that name; there are: /tidy"):
        shell.run_line_magic("agent", "/nope")


def test_with_claude_project_off_nothing_of_the_project_is_read(
    project_shell: ProjectShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell = project_shell({})
    (Path.cwd() / ".claude").mkdir()
    (Path.cwd() / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
    shell.run_line_magic("config", "AgentMagics.claude_project = False")
    capsys.readouterr()
    shell.run_line_magic("agent", "rules")
    assert capsys.readouterr().out.startswith("no permission rules")


def test_a_projects_default_mode_applies_and_status_says_where_it_came_from(
    project_shell: ProjectShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell = project_shell({".claude/settings.json": {"permissions": {"defaultMode": "acceptEdits"}}})
    shell.run_line_magic("agent", "trust")
    capsys.readouterr()
    shell.run_line_magic("agent", "status")
    assert "mode:     acceptEdits (the project's permissions.defaultMode; %agent mode sets yours)" in (
        capsys.readouterr().out
    )
    shell.run_line_magic("agent", "mode plan")
    capsys.readouterr()
    shell.run_line_magic("agent", "status")
    assert "mode:     plan\n" in capsys.readouterr().out


def test_additional_directories_of_a_trusted_project_become_roots(
    project_shell: ProjectShell, serve: Callable[[list[Turn]], ScriptedServer]
) -> None:
    data = Path.cwd().parent / "data"
    data.mkdir()
    (data / "sales.csv").write_text("month,sales\nMar,9\n")
    shell = project_shell({".claude/settings.json": {"permissions": {"additionalDirectories": ["../data"]}}})
    read = ToolUse(name="Read", input={"file_path": str(data / "sales.csv")})
    server = serve(
        [Turn(blocks=[read]), Turn(blocks=[Text("read")]), Turn(blocks=[read]), Turn(blocks=[Text("ok")])]
    )
    shell.run_cell_magic("agent", "", "read the sales")
    before = server.requests[1]["messages"][-1]["content"][0]["content"][0]["text"]
    assert before.startswith("OUTSIDE_ROOTS:")  # not trusted yet: no extra root
    shell.run_line_magic("agent", "trust")
    shell.run_cell_magic("agent", "", "again")
    after = server.requests[3]["messages"][-1]["content"][0]["content"][0]["text"]
    assert "Mar,9" in after
