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
from ..base.json_values import is_object
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
