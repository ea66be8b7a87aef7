"""One definition file of `.claude/` (a skill, a sub-agent, a command): Markdown with YAML front matter, read
under the package's confinement rule (`base.confined`), and the one-line warnings of the files that cannot be used.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..base.confined import read_confined
from ..base.errors import ToolError
from ..base.json_values import is_array, is_object
from ..builtin_tools.skill import front_matter_split

#: Markdown files larger than this are not read.
MAX_DEFINITION_BYTES = 256 * 1024


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


def read_markdown(path: Path, areas: Sequence[Path], problems: Problems) -> Markdown | None:
    """The file, read only when its real path is in `areas` (see `DefinitionDir`); a link that leads out is one
    warning, and nothing of what it points at is read."""
    try:
        raw = read_confined(path, areas, limit=MAX_DEFINITION_BYTES + 1)
    except ToolError as exc:
        problems.warn(path, "(file)", f"{exc.message}; skipped")
        return None
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

#: The front matter keys of Claude Code's skills, sub-agents, commands and output styles: in front matter YAML
#: refuses, a line starting with one of them starts a new value; any other line goes on with the value before it
#: (a description's `Context: …`, `user: "…"` and `<example>` lines).
KNOWN_KEYS = frozenset(
    {
        "name", "description", "when_to_use", "tools", "disallowedTools", "model", "color", "effort",
        "allowed-tools", "argument-hint", "disable-model-invocation", "user-invocable", "context", "agent",
        "hooks", "permissionMode", "skills", "mcpServers", "maxTurns", "memory", "isolation", "background",
        "version", "license", "metadata", "paths", "shell", "keep-coding-instructions", "initialPrompt",
    }
)  # fmt: skip


def loose_front_matter(header: str) -> dict[str, Any] | None:
    """Front matter as Claude Code reads what YAML refuses: `key: value` lines with the value as written
    (`argument-hint: [pr-number] [priority]`, `description: Use when: the data is late`), a value going on over
    the lines that start no known key (`KNOWN_KEYS`; literal `\\n` read as line breaks), `- item` lines under a
    key with no value as its list, and a flow list (`tools: ["Read", "Grep"]`) as its list; None when the first
    line starts no key."""
    meta: dict[str, str | None] = {}
    lists: dict[str, list[str]] = {}
    last: str | None = None
    for line in header.splitlines():
        stripped = line.strip()
        if not stripped or (stripped.startswith("#") and last is None):
            continue
        if line[0].isspace() and last is not None and meta[last] is None and stripped.startswith("- "):
            lists.setdefault(last, []).append(_unquoted(stripped[2:]))
            continue
        found = _LOOSE_KEY.match(stripped) if not line[0].isspace() else None
        if found is not None and (last is None or found.group(1) in KNOWN_KEYS):
            key, value = str(found.group(1)), found.group(2)
            meta[key] = value or None
            last = key
        elif last is not None and last not in lists:
            meta[last] = f"{meta[last] or ''}\n{stripped}".lstrip("\n")
        else:
            return None
    return {**{k: None if v is None else _value(v) for k, v in meta.items()}, **lists}


def _value(value: str) -> str | list[str]:
    """A value as written, unquoted; a flow list `["Read", "Grep"]` as its items."""
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        try:
            items: object = yaml.safe_load(value)
        except yaml.YAMLError:
            return value
        if is_array(items):
            return [str(item) for item in items]
    return _unquoted(value).replace("\\n", "\n")


def _unquoted(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value
