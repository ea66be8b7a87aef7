"""Skill: load one of the user's skills (`.claude/skills/<name>/SKILL.md`) on demand.

The tool's description is fixed; the skills' names and descriptions (text from the repository) are listed by
`Skill` without a name — a tool result the conversation's opening holds — and a body is read when the model asks
for it. A skill's
other files are listed; `Skill(skill="<name>/<file>")` reads one (confined to the skill's directory), and those
inside the allowed roots can be read with Read too. `Skill(name)` permission rules match the skill a call
names (`Skill(deploy *)`: with any arguments), so a denied skill is never loaded. A skill's `allowed-tools`
narrows what runs while it is active (until the end of the run); a skill loaded while another scope is active (an
outer skill's, a command's) narrows within that one, so a nested skill never widens it. It never allows anything
the rules and the mode would not.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from ..base.confined import read_confined
from ..base.errors import ToolError
from ..base.result import ToolResult, error_code
from ..base.sandbox import looks_binary
from ..masking import cap_text
from ..permissions.policy import Rule, ToolScope
from ..tools.context import ToolContext
from ..tools.core import READ_ONLY, InstanceTool, ToolInput
from .listing import MAX_LISTED, Listing, capped

SKILL_FILE = "SKILL.md"
#: `` !`cmd` `` anywhere in a line (Claude Code's form; not a Markdown code span that merely starts with `!`):
#: a command whose output Claude Code puts in the skill's text before the model reads it.
BANG = re.compile(r"(?<![\w`])!`(?P<command>[^`\n]+)`")
#: What the model is told of them when it loads the skill itself: they were not run (loading a skill asks no
#: one, and a command must go through Bash's rules), so it runs the ones it needs as any Bash call.
NOT_RUN = (
    "(This skill's !`command` lines are commands whose output belongs here; they were not run when the skill "
    "was loaded. Run the ones you need with Bash where it is offered (it asks for approval as usual).)"
)
SKILL_NOT_FOUND = error_code("SKILL_NOT_FOUND")
#: Files of a skill listed at most, and characters of one read.
MAX_LISTED_FILES = 100
MAX_SKILL_CHARS = 60_000


@dataclass(frozen=True, kw_only=True)
class Skill:
    """One skill as found on disk; its body is read on demand."""

    name: str
    description: str
    directory: Path
    #: `allowed-tools` as rules (`Read`, `Bash(git diff:*)`); None when the skill names none.
    allowed_tools: tuple[str, ...] | None = None
    #: "project" (`.claude/skills`) or "user" (`~/.claude/skills`).
    where: str = "project"
    #: The folders its SKILL.md may lead to (`base.confined`; the project's roots, or `~/.claude`); empty: its
    #: own directory only. Its other files never leave its directory.
    areas: tuple[Path, ...] = ()

    @property
    def file(self) -> Path:
        return self.directory / SKILL_FILE


def front_matter_split(text: str) -> tuple[str, str]:
    """(the YAML between the leading `---` lines, the rest); ("", text) when there is no front matter."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return "", text
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return "".join(lines[1:index]), "".join(lines[index + 1 :])
    return "", text


def with_arguments(body: str, args: str) -> str:
    """`$ARGUMENTS` and `$1`…`$9` replaced; arguments the text has no place for are appended, never lost."""
    import shlex

    try:
        words = shlex.split(args)
    except ValueError:
        words = args.split()
    placed = "$ARGUMENTS" in body or any(f"${n}" in body for n in range(1, 10))
    text = body.replace("$ARGUMENTS", args)
    for number in range(9, 0, -1):  # $1 must not eat the start of $10-like text first
        text = text.replace(f"${number}", words[number - 1] if number <= len(words) else "")
    if args.strip() and not placed:
        text = f"{text.rstrip()}\n\nARGUMENTS: {args.strip()}"
    return text


#: The Skill tool's description: fixed, so the tool list stays byte-identical for a conversation. The skills
#: themselves (names and descriptions are text from the repository) are listed by `Skill` without a name, in a
#: tool result, which the conversation's opening holds.
DESCRIPTION = (
    "Load a skill: the user's written instructions for a kind of task, with files that support them. When a "
    "request matches a skill's description, call Skill first and follow what it says.\n"
    "- skill: the skill's name; `<name>/<file>` reads one of the files the skill lists. Without it, Skill "
    "lists the skills.\n"
    "- args: optional arguments for the skill.\n"
    "- A skill may limit the tools you can use while it is active."
)


def skill_list(skills: Sequence[Skill]) -> Listing[Skill]:
    """The skills listed (capped: `builtin_tools.listing`, so hundreds of them cannot fill every request) and their lines."""
    return capped(skills, lambda s: f"- {s.name}: {s.description} ({s.where})")


def skill_listing(skills: Sequence[Skill]) -> str:
    """What `Skill` without a name answers: each skill's name and description (from its SKILL.md), capped, with a
    line saying how many were left out."""
    return f"Available skills:\n{skill_list(skills).text('skills') or '(none)'}"


class SkillInput(ToolInput):
    skill: str | None = Field(default=None, min_length=1)
    """The skill's name (as listed), or `<name>/<file>` for one of its files; none lists the skills."""
    args: str | None = None
    """Arguments for the skill, as the user would type them after its name."""


#: The Skill tool's name (an `InstanceTool`: its name is given per instance).
SKILL_TOOL_NAME = "Skill"


class SkillTool(InstanceTool[SkillInput]):
    """The `Skill` tool for one session's skills (`Skill` without a name lists them)."""

    def __init__(self, skills: Sequence[Skill]) -> None:
        super().__init__(
            name=SKILL_TOOL_NAME,
            description=DESCRIPTION,
            input_model=SkillInput,
            kind="read",
            annotations=READ_ONLY,
        )
        #: Every skill, by name; the listing shows the first ones only (`skill_list`).
        self.skills = {skill.name: skill for skill in skills}

    def title(self, params: SkillInput, ctx: ToolContext) -> str:
        return f"Skill {params.skill}" if params.skill else "Skill (list)"

    def rule_subject(self, params: SkillInput, ctx: ToolContext) -> str | None:
        """What `Skill(name)` rules match: the skill's name (also for one of its files), then its arguments."""
        if params.skill is None:
            return None
        return skill_subject(params.skill.partition("/")[0], params.args or "")

    def find(self, name: str) -> Skill:
        skill = self.skills.get(name)
        if skill is None:
            names = sorted(self.skills)
            known = ", ".join(names[:MAX_LISTED]) or "none"
            more = (
                f" and {len(names) - MAX_LISTED} more (Skill without a name lists them)"
                if len(names) > MAX_LISTED
                else ""
            )
            raise ToolError(
                SKILL_NOT_FOUND, f"there is no skill named '{name}'; the skills are: {known}{more}"
            )
        return skill

    async def run(self, params: SkillInput, ctx: ToolContext) -> ToolResult:
        if params.skill is None:
            return ToolResult.ok(
                skill_listing(list(self.skills.values())), summary=f"{len(self.skills)} skill(s)"
            )
        name, _, inner = params.skill.partition("/")
        skill = self.find(name)
        if inner:
            return ToolResult.ok(read_skill_file(skill, inner), summary=f"{name}/{inner}")
        text = activate(skill, params.args or "", ctx)
        return ToolResult.ok(text, summary=f"skill {name} loaded")


def skill_subject(name: str, args: str) -> str:
    """The subject of `Skill(…)` rules, as Claude Code matches them: `review-pr 42` (`Skill(review-pr *)`)."""
    return f"{name} {args.strip()}" if args.strip() else name


def activate(skill: Skill, args: str, ctx: ToolContext) -> str:
    """The skill's instructions for the model; its `allowed-tools` become the policy's scope, inside the one
    active now."""
    text = instructions(skill, args)
    if BANG.search(
        text
    ):  # `%agent /name` runs them first (`project/command_context.py`); a tool call cannot ask
        text += f"\n\n{NOT_RUN}"
    scope = skill_scope(skill, within=ctx.policy.scope)
    if scope is None:
        return text
    ctx.policy.scope = scope
    if scope.within is None:
        return text
    outer = f"(Inside the allowed-tools of {scope.within.owner}: a tool runs only when both allow it.)"
    return f"{text}\n{outer}"


def skill_scope(skill: Skill, *, within: ToolScope | None = None) -> ToolScope | None:
    if skill.allowed_tools is None:
        return None
    return ToolScope(
        rules=tuple(Rule.parse(t) for t in skill.allowed_tools),
        owner=f"the skill '{skill.name}'",
        within=within,
    )


def instructions(skill: Skill, args: str) -> str:
    """What the model reads when the skill is loaded: where it is, its body (arguments filled in), its files."""
    _, body = front_matter_split(_read_text(skill.file, skill, skill.areas or (skill.directory,)))
    parts = [f"Base directory for this skill: {skill.directory}", "", with_arguments(body.strip(), args)]
    files = other_files(skill)
    if files:
        parts += [
            "",
            f"Other files of this skill (read one with Read at its path under the base directory, or with "
            f'Skill(skill="{skill.name}/<file>")):',
        ]
        parts += [f"- {path}" for path in files]
    if skill.allowed_tools is not None:
        parts += ["", f"While this skill is active only these tools run: {', '.join(skill.allowed_tools)}."]
    return "\n".join(parts)


def other_files(skill: Skill) -> list[str]:
    found: list[str] = []
    for folder, dirs, files in os.walk(skill.directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            relative = (Path(folder) / name).relative_to(skill.directory).as_posix()
            if relative != SKILL_FILE and not name.startswith("."):
                found.append(relative)
            if len(found) >= MAX_LISTED_FILES:
                return found
    return found


def read_skill_file(skill: Skill, relative: str) -> str:
    """One file of the skill: its real path must stay inside the skill's directory (checked as it is read)."""
    base = Path(os.path.realpath(skill.directory))
    path = Path(os.path.realpath(base / relative))
    if path != base and not path.is_relative_to(base):
        raise ToolError("OUTSIDE_ROOTS", f"'{relative}' is not inside the skill '{skill.name}'")
    if not path.is_file():
        files = ", ".join(other_files(skill)[:20]) or "none"
        raise ToolError(
            "FILE_NOT_FOUND", f"the skill '{skill.name}' has no file '{relative}'; its files: {files}"
        )
    return _read_text(path, skill, (base,))


def _read_text(path: Path, skill: Skill, areas: Sequence[Path]) -> str:
    """The file as text, read under the package's confinement rule: its real path, now, inside `areas`."""
    try:
        raw = read_confined(path, areas)
    except ToolError as exc:
        raise ToolError(exc.code, f"the skill '{skill.name}': {exc.message}") from None
    except OSError as exc:
        raise ToolError("FILE_NOT_FOUND", f"cannot read {path} of the skill '{skill.name}': {exc}") from exc
    if looks_binary(raw[:8192]):
        raise ToolError("BINARY_FILE", f"{path.name} of the skill '{skill.name}' is not a text file")
    return cap_text(raw.decode("utf-8", "replace"), MAX_SKILL_CHARS)
