"""`%agent /name args`: a skill or a custom command, run as a request.

A command's body becomes the request (`$ARGUMENTS`, `$1`… filled in; arguments with no place are appended),
its `allowed-tools` narrow the run and its `model` runs it. A skill is loaded as the Skill tool would load it,
and its `allowed-tools` narrow the run the same way. `Skill(name)` deny rules refuse both here as they refuse the
Skill tool (Claude Code makes a command a skill of the same name); an ask rule is answered by the user typing
the command. MCP prompts (`/mcp__server__prompt`) are fetched from the
server by the host (`builtin_tools/mcp/prompts.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base.errors import ToolError
from ..builtin_tools.skill import SKILL_TOOL_NAME, instructions, skill_subject, with_arguments
from ..permissions.policy import CallFacts, PermissionPolicy
from .claude import ProjectLibrary


@dataclass(frozen=True, kw_only=True)
class SlashRun:
    """What `%agent /name args` runs: the request, the tools it may use (None: any), who narrowed them, and
    the model (None: the session's)."""

    request: str
    allowed_tools: tuple[str, ...] | None = None
    owner: str = ""
    model: str | None = None
    #: What runs: "command" or "skill".
    kind: str = "command"
    #: Whose file it is ("project", "user", a plugin's): a project's `` !`cmd` `` waits for `%agent trust`.
    where: str = "project"


class UnknownCommand(ValueError):
    """No skill or command by that name; the message lists those there are."""


def slash_run(name: str, args: str, library: ProjectLibrary) -> SlashRun:
    """The run `%agent /name args` asks for; UnknownCommand (listing the names) when there is none."""
    command = next((c for c in library.commands if c.name == name), None)
    if command is not None:
        return SlashRun(
            request=with_arguments(command.body, args),
            allowed_tools=command.allowed_tools,
            owner=f"the command /{name}",
            model=command.model,
            where=command.where,
        )
    skill = next((s for s in library.skills if s.name == name), None)
    if skill is not None:
        try:
            loaded = instructions(skill, args)
        except ToolError as exc:
            raise UnknownCommand(f"%agent /{name}: {exc.message}") from None
        request = f"The user invoked the skill '{name}'{' with arguments' if args.strip() else ''}. {loaded}"
        return SlashRun(
            request=request,
            allowed_tools=skill.allowed_tools,
            owner=f"the skill '{name}'",
            kind="skill",
            where=skill.where,
        )
    known = [f"/{c.name}" for c in library.commands] + [f"/{s.name}" for s in library.skills]
    listed = ", ".join(sorted(known)) or "none (put them in .claude/commands/ and .claude/skills/)"
    raise UnknownCommand(f"%agent /{name}: no command or skill by that name; there are: {listed}")


def refusal(policy: PermissionPolicy, name: str, args: str) -> str | None:
    """Why `%agent /name args` may not run (a `Skill(…)` deny rule matches it), or None; checked before the skill's
    file is read."""
    facts = CallFacts(
        tool=SKILL_TOOL_NAME,
        subject=skill_subject(name, args),
        rule_kind="text",
        kind="read",
        read_only=True,
    )
    rule = next((r for r in policy.deny if r.matches(facts)), None)
    if rule is None:
        return None
    return f"%agent /{name}: denied by the rule {rule}; nothing was run (remove the rule to run it)"
