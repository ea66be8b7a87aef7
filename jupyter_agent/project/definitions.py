"""Skills, sub-agents and commands: Markdown files with YAML front matter under `.claude/`.

- `skills/<name>/SKILL.md`: `name`, `description`, optional `allowed-tools`; the body is read on demand.
- `agents/**/*.md` (subfolders too, as Claude Code reads them): `name`, `description`, optional `tools` and
  `model`; the body is the sub-agent's system prompt.
- `commands/**/*.md`: the file name is the command; optional `description`, `allowed-tools`, `model`,
  `argument-hint`; the body is the request, with `$ARGUMENTS` and `$1`… filled in.

Directories are read from the most general (`~/.claude`) to the most specific (the notebook's directory), and a
later definition of the same name wins. A file that cannot be used is one warning naming it and the key. A
`name:` that `/name` cannot call (`name: Plugin Settings`) gives way to the file's or folder's name. Front
matter YAML refuses is read as Claude Code reads it (`markdown_file.py`). A
definition that leads out of its allowed folders through a symlink is not read (`DefinitionDir.areas`).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from ..base.json_values import is_array
from ..builtin_tools.skill import SKILL_FILE, Skill
from ..permissions.policy import Rule
from ..tools.agent_types import AgentType
from .markdown_file import Markdown, Problems, read_markdown

#: Names a skill, agent or command may have (what follows `/` in `%agent /name`).
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}\Z")
#: `model:` shorthands, as in Claude Code, to the models this package knows.
MODEL_ALIASES = {"sonnet": "claude-sonnet-5-5", "opus": "claude-opus-5-5", "haiku": "claude-haiku-5-5"}

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class DefinitionDir:
    """A `.claude/` directory definitions are read from, whose it is, and where the files in it may lead."""

    path: Path
    #: "user" (`~/.claude`) or "project".
    where: str
    #: The folders a definition's real path must be in (`base.confined`): a project's are the allowed roots and
    #: the project directory (the memory files' rule); yours are `~/.claude` itself and, once a kind's folder is
    #: read, that folder's real path (a `~/.claude/commands` linked to your dotfiles works).
    areas: tuple[Path, ...]
    #: Whether a definition's `model:` is used (yours, or a trusted project's).
    models: bool = True
    #: A plugin's name: its definitions are named `plugin:name`, as Claude Code names them.
    namespace: str = ""
    #: More places of a kind (`"commands"`, a folder or one file), read after `path/<kind>` (a plugin's
    #: `plugin.json` paths, which add to its default folders).
    extra: tuple[tuple[str, Path], ...] = ()

    def within(self, folder: Path) -> DefinitionDir:
        """The directory as seen from one of its kind folders (`skills/`, `agents/`, `commands/`)."""
        if self.where != "user":
            return self
        return dataclasses.replace(self, areas=(*self.areas, Path(os.path.realpath(folder))))


@dataclass(frozen=True, kw_only=True)
class Command:
    """A custom slash command: `%agent /name args`."""

    name: str
    description: str
    body: str
    allowed_tools: tuple[str, ...] | None = None
    model: str | None = None
    argument_hint: str = ""
    path: Path
    where: str = "project"


def _text(doc: Markdown, key: str, problems: Problems) -> str:
    value = doc.meta.get(key)
    if value is None:
        return ""
    if not isinstance(value, str | int | float):
        problems.warn(doc.path, key, f"expected text, got {type(value).__name__}; ignored")
        return ""
    return " ".join(str(value).split())


def _tool_list(doc: Markdown, key: str, problems: Problems) -> tuple[str, ...] | None:
    """`Read, Grep` or a YAML list → the rules; None when the key is absent. A rule that does not parse is
    left out with a warning (so the list only gets narrower)."""
    value = doc.meta.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        items = _split_outside_parens(value)
    elif is_array(value):
        items = [str(item).strip() for item in value]
    else:
        problems.warn(
            doc.path, key, f"expected a list of tools, got {type(value).__name__}; no tools allowed"
        )
        return ()
    kept: list[str] = []
    for item in (i for i in items if i):
        try:
            kept.append(str(Rule.parse(item)))
        except ValueError as exc:
            problems.warn(doc.path, key, f"{exc}; left out")
    return tuple(kept)


def _split_outside_parens(text: str) -> list[str]:
    """`Read, Bash(git add:*, git commit:*)` → two items (commas inside parentheses stay)."""
    items: list[str] = []
    depth, current = 0, ""
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char in ", " and depth == 0:
            items.append(current)
            current = ""
        else:
            current += char
    return [item.strip() for item in [*items, current]]


def _model(doc: Markdown, source: DefinitionDir, problems: Problems) -> str | None:
    """The `model:` to run on — only from your own files or a trusted project's: a repository you have not
    trusted does not choose what its sub-agents and commands cost (the session's model runs them, and a warning
    says so)."""
    value = _text(doc, "model", problems)
    if not value or value == "inherit":
        return None
    if not source.models:
        problems.warn(
            doc.path,
            "model",
            f"{value!r} is not used: an untrusted project does not choose the model (it runs on the session's); "
            "%agent trust, then %agent reset, lets it",
        )
        return None
    return MODEL_ALIASES.get(value.lower(), value)


def _named(doc: Markdown, default: str, problems: Problems, namespace: str = "") -> str | None:
    """The `name:`, or where it is missing or not a name `/name` can call (`name: Plugin Settings`), the file's
    or folder's name, as Claude Code calls such a skill; a plugin's as `plugin:name`."""
    if namespace:
        found = _named(doc, default, problems)
        return None if found is None else f"{namespace}:{found}"
    name = _text(doc, "name", problems)
    if _NAME.match(name):
        return name
    if not _NAME.match(default):
        shown = f"{name!r} nor {default!r} is" if name else f"{default!r} is"
        problems.warn(doc.path, "name", f"neither {shown} a usable name (letters, digits, - _ . :); skipped")
        return None
    return default


def read_skill(path: Path, source: DefinitionDir, problems: Problems) -> Skill | None:
    """The skill whose `SKILL.md` is `path` (its folder is the skill's)."""
    folder = path.parent
    doc = read_markdown(path, source.areas, problems)
    if doc is None:
        return None
    name = _named(doc, folder.name, problems, source.namespace)
    if name is None:
        return None
    description = _text(doc, "description", problems) or first_paragraph(doc.body)
    if not description:
        problems.warn(
            doc.path,
            "description",
            "missing, and the body has no paragraph to use instead: the model cannot tell when to use the "
            "skill; skipped",
        )
        return None
    allowed = _tool_list(doc, "allowed-tools", problems)
    return Skill(
        name=name,
        description=description,
        directory=folder,
        allowed_tools=allowed,
        where=source.where,
        areas=source.areas,
    )


def first_paragraph(body: str, limit: int = 1024) -> str:
    """A skill's description when its front matter has none, as Claude Code does: the body's first paragraph
    (headings skipped), on one line, at most `limit` characters."""
    for block in body.split("\n\n"):
        lines = [line.strip() for line in block.strip().splitlines() if not line.lstrip().startswith("#")]
        text = " ".join(line for line in lines if line)
        if text:
            return text[:limit]
    return ""


def read_agent(path: Path, source: DefinitionDir, problems: Problems) -> AgentType | None:
    doc = read_markdown(path, source.areas, problems)
    if doc is None:
        return None
    name = _named(doc, path.stem, problems, source.namespace)
    if name is None:
        return None
    description = _text(doc, "description", problems)
    if not description:
        problems.warn(path, "description", "missing: the model cannot tell when to use the agent; skipped")
        return None
    tools = _tool_list(doc, "tools", problems)
    return AgentType(
        name=name,
        description=description,
        tools=tools,
        prompt=doc.body.strip(),
        model=_model(doc, source, problems),
        source=str(path),
    )


def _hint(doc: Markdown, problems: Problems) -> str:
    """`argument-hint: [message]` is text in Claude Code, though YAML reads a list: shown as written."""
    value = doc.meta.get("argument-hint")
    if is_array(value):
        return " ".join(f"[{item}]" for item in value)
    return _text(doc, "argument-hint", problems)


def read_command(path: Path, source: DefinitionDir, problems: Problems) -> Command | None:
    doc = read_markdown(path, source.areas, problems)
    if doc is None:
        return None
    name = _named(doc, path.stem, problems, source.namespace)
    if name is None:
        return None
    if not doc.body.strip():
        problems.warn(path, "(body)", "empty: the command would send nothing; skipped")
        return None
    return Command(
        name=name,
        description=_text(doc, "description", problems) or doc.body.strip().splitlines()[0][:80],
        body=doc.body.strip(),
        allowed_tools=_tool_list(doc, "allowed-tools", problems),
        model=_model(doc, source, problems),
        argument_hint=_hint(doc, problems),
        path=path,
        where=source.where,
    )


@dataclass(frozen=True, kw_only=True)
class Shadowed:
    """A definition of one name replaced by a more specific one (a project's command over your own)."""

    kind: str
    name: str
    #: The file that won, and the one it hides.
    by: Path
    hidden: Path
    hidden_where: str


@dataclass
class Loaded(Generic[T]):
    items: list[T]
    shadowed: list[Shadowed]


def _load(
    dirs: Sequence[DefinitionDir],
    folder: str,
    pattern: str,
    read: Callable[[Path, DefinitionDir, Problems], T | None],
    problems: Problems,
    identify: Callable[[T], tuple[str, Path]],
) -> Loaded[T]:
    """Every `folder/pattern` file of every `.claude/` directory, read, one per name: a later definition (a more
    specific directory comes later) replaces an earlier one; where the winner is another scope's than the most
    general one of its name (a project's over yours), that is kept as `Shadowed`."""
    won: dict[str, tuple[T, DefinitionDir]] = {}
    first: dict[str, tuple[T, DefinitionDir]] = {}
    for source in dirs:
        roots = [source.path / folder, *(path for kind, path in source.extra if kind == folder)]
        found = [(path, root) for root in roots for path in _files_of(root, pattern)]
        for path, root in found:
            made = read(path, source.within(root), problems)
            if made is not None:
                name = identify(made)[0]
                first.setdefault(name, (made, source))
                won[name] = (made, source)
    shadowed = [
        Shadowed(
            kind=folder.rstrip("s"),
            name=name,
            by=identify(made)[1],
            hidden=identify(first[name][0])[1],
            hidden_where=first[name][1].where,
        )
        for name, (made, source) in sorted(won.items())
        if first[name][1].where != source.where
    ]
    return Loaded(items=[won[name][0] for name in sorted(won)], shadowed=shadowed)


def _files_of(root: Path, pattern: str) -> list[Path]:
    """The definition files of one place: a folder's (by `pattern`), a skill folder's SKILL.md, or the file."""
    if root.is_file():
        return [root] if root.suffix == ".md" else []
    if pattern.endswith(SKILL_FILE) and (root / SKILL_FILE).is_file():
        return [root / SKILL_FILE]
    return sorted(root.glob(pattern)) if root.is_dir() else []


def load_skills(dirs: Sequence[DefinitionDir], problems: Problems) -> Loaded[Skill]:
    return _load(dirs, "skills", f"*/{SKILL_FILE}", read_skill, problems, lambda s: (s.name, s.file))


def load_agents(dirs: Sequence[DefinitionDir], problems: Problems) -> Loaded[AgentType]:
    return _load(dirs, "agents", "**/*.md", read_agent, problems, lambda a: (a.name, Path(a.source)))


def load_commands(dirs: Sequence[DefinitionDir], problems: Problems) -> Loaded[Command]:
    return _load(dirs, "commands", "**/*.md", read_command, problems, lambda c: (c.name, c.path))
