"""Skills, sub-agents and commands: Markdown files with YAML front matter under `.claude/`.

- `skills/<name>/SKILL.md`: `name`, `description`, optional `allowed-tools`; the body is read on demand.
- `agents/*.md`: `name`, `description`, optional `tools` and `model`; the body is the sub-agent's system prompt.
- `commands/**/*.md`: the file name is the command; optional `description`, `allowed-tools`, `model`,
  `argument-hint`; the body is the request, with `$ARGUMENTS` and `$1`… filled in.

Directories are read from the most general (`~/.claude`) to the most specific (the notebook's directory), and a
later definition of the same name wins. A file that cannot be used is one warning naming it and the key. Front
matter YAML refuses is read one `key: value` a line, as Claude Code reads it (`loose_front_matter`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml

from ..base.json_values import is_array, is_object
from ..tools.permissions import Rule
from ..tools.skill import SKILL_FILE, Skill, front_matter_split
from ..tools.workflow.agent_types import AgentType

#: Names a skill, agent or command may have (what follows `/` in `%agent /name`).
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}\Z")
#: Markdown files larger than this are not read.
MAX_DEFINITION_BYTES = 256 * 1024
#: `model:` shorthands, as in Claude Code, to the models this package knows.
MODEL_ALIASES = {"sonnet": "claude-sonnet-5-5", "opus": "claude-opus-5-5", "haiku": "claude-haiku-5-5"}

T = TypeVar("T")


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


@dataclass(frozen=True, kw_only=True)
class Markdown:
    """A definition file read: its front matter (a mapping) and its body."""

    path: Path
    meta: dict[str, Any]
    body: str


class Problems:
    """Collects the one-line warnings of the files read."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def warn(self, path: Path, key: str, message: str) -> None:
        self.lines.append(f"jupyter_agent: {path}: {key}: {message}")


def read_markdown(path: Path, problems: Problems) -> Markdown | None:
    try:
        raw = path.read_bytes()[: MAX_DEFINITION_BYTES + 1]
    except OSError as exc:
        problems.warn(path, "(file)", f"cannot be read ({exc}); skipped")
        return None
    if len(raw) > MAX_DEFINITION_BYTES:
        problems.warn(path, "(file)", f"larger than {MAX_DEFINITION_BYTES:,} bytes; skipped")
        return None
    text = raw.decode("utf-8-sig", "replace")  # a BOM from a Windows editor is not part of the `---` line
    header, body = front_matter_split(text)
    try:
        meta: object = yaml.safe_load(header) if header.strip() else {}
    except yaml.YAMLError as exc:
        meta = loose_front_matter(header)
        if meta is None:
            where = getattr(exc, "problem_mark", None)
            line = f" (line {where.line + 2})" if where is not None else ""
            problems.warn(path, "front matter", f"not valid YAML{line}; skipped")
            return None
    if not is_object(meta):
        problems.warn(path, "front matter", "expected `key: value` lines; skipped")
        return None
    return Markdown(path=path, meta={str(k): v for k, v in meta.items()}, body=body)


_LOOSE_KEY = re.compile(r"([A-Za-z][\w-]*):(?:\s+(.*))?\Z")


def loose_front_matter(header: str) -> dict[str, Any] | None:
    """Front matter as Claude Code reads what YAML refuses: one `key: value` a line, the value as written
    (`argument-hint: [pr-number] [priority]`, `description: Use when: the data is late`), `- item` lines under
    a key with no value as its list; None when a line is neither."""
    meta: dict[str, Any] = {}
    lists: dict[str, list[str]] = {}
    last: str | None = None
    for line in header.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if line[0].isspace() and last is not None and meta[last] is None and stripped.startswith("- "):
            lists.setdefault(last, []).append(_unquoted(stripped[2:]))
            continue
        found = _LOOSE_KEY.match(stripped) if not line[0].isspace() else None
        if found is None:
            return None
        key, value = str(found.group(1)), found.group(2)
        meta[key] = _unquoted(value) if value else None
        last = key
    return {**meta, **lists}


def _unquoted(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


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


def _model(doc: Markdown, problems: Problems) -> str | None:
    value = _text(doc, "model", problems)
    if not value or value == "inherit":
        return None
    return MODEL_ALIASES.get(value.lower(), value)


def _named(doc: Markdown, default: str, problems: Problems) -> str | None:
    name = _text(doc, "name", problems) or default
    if not _NAME.match(name):
        problems.warn(doc.path, "name", f"{name!r} is not a usable name (letters, digits, - _ . :); skipped")
        return None
    return name


def read_skill(folder: Path, where: str, problems: Problems) -> Skill | None:
    doc = read_markdown(folder / SKILL_FILE, problems)
    if doc is None:
        return None
    name = _named(doc, folder.name, problems)
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
    return Skill(name=name, description=description, directory=folder, allowed_tools=allowed, where=where)


def first_paragraph(body: str, limit: int = 1024) -> str:
    """A skill's description when its front matter has none, as Claude Code does: the body's first paragraph
    (headings skipped), on one line, at most `limit` characters."""
    for block in body.split("\n\n"):
        lines = [line.strip() for line in block.strip().splitlines() if not line.lstrip().startswith("#")]
        text = " ".join(line for line in lines if line)
        if text:
            return text[:limit]
    return ""


def read_agent(path: Path, problems: Problems) -> AgentType | None:
    doc = read_markdown(path, problems)
    if doc is None:
        return None
    name = _named(doc, path.stem, problems)
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
        model=_model(doc, problems),
        source=str(path),
    )


def _hint(doc: Markdown, problems: Problems) -> str:
    """`argument-hint: [message]` is text in Claude Code, though YAML reads a list: shown as written."""
    value = doc.meta.get("argument-hint")
    if is_array(value):
        return " ".join(f"[{item}]" for item in value)
    return _text(doc, "argument-hint", problems)


def read_command(path: Path, where: str, problems: Problems) -> Command | None:
    doc = read_markdown(path, problems)
    if doc is None:
        return None
    name = _named(doc, path.stem, problems)
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
        model=_model(doc, problems),
        argument_hint=_hint(doc, problems),
        path=path,
        where=where,
    )


def _load(
    dirs: Sequence[tuple[Path, str]],
    folder: str,
    pattern: str,
    read: Callable[[Path, str], T | None],
    name: Callable[[T], str],
) -> list[T]:
    """Every `folder/pattern` file of every `.claude/` directory, read, one per name: a later definition (a more
    specific directory comes later) replaces an earlier one."""
    by_name: dict[str, T] = {}
    for claude_dir, where in dirs:
        root = claude_dir / folder
        for path in sorted(root.glob(pattern)) if root.is_dir() else []:
            made = read(path, where)
            if made is not None:
                by_name.pop(name(made), None)
                by_name[name(made)] = made
    return sorted(by_name.values(), key=name)


def load_skills(dirs: Sequence[tuple[Path, str]], problems: Problems) -> list[Skill]:
    return _load(
        dirs, "skills", f"*/{SKILL_FILE}", lambda p, w: read_skill(p.parent, w, problems), lambda s: s.name
    )


def load_agents(dirs: Sequence[tuple[Path, str]], problems: Problems) -> list[AgentType]:
    return _load(dirs, "agents", "*.md", lambda p, _: read_agent(p, problems), lambda a: a.name)


def load_commands(dirs: Sequence[tuple[Path, str]], problems: Problems) -> list[Command]:
    return _load(dirs, "commands", "**/*.md", lambda p, w: read_command(p, w, problems), lambda c: c.name)
