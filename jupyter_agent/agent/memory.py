"""Memory files: standing instructions in `AGENTS.md` / `CLAUDE.md` files.

Read, in this order (most general first, so a more specific file comes later and wins):
1. the user's own `~/.jupyter_agent/AGENTS.md`;
2. `AGENTS.md` then `CLAUDE.md` of every directory from the top down to the notebook's directory. The top
   is the outermost allowed root that holds the notebook's directory, or the git work tree holding it when
   that reaches higher (a repository's AGENTS.md sits at its top, notebooks often in a subfolder).
A project file whose real path leaves the allowed roots and the top directory (a symlink out) is not read; your
own file may lead only within its folder (`base.confined`, the rule for every file the package reads). Each file
is cut at `MAX_MEMORY_CHARS`. The files are read once per conversation; `%agent reset` reads them again.

The user's own file is the user's instruction and goes in the system prompt (`memory_section`); a project's files
come from a repository other people can edit, so they reach the model as tool results (`opening.py`), as
Anthropic's advice on indirect prompt injection says.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..base.confined import read_confined
from ..base.errors import ToolError
from ..masking import clip

MEMORY_NAMES = ("AGENTS.md", "CLAUDE.md")
#: Characters kept of one memory file.
MAX_MEMORY_CHARS = 40_000


@dataclass(frozen=True, kw_only=True)
class MemoryFile:
    path: Path
    text: str
    #: Characters cut from the end (0: the whole file is in the prompt).
    cut: int = 0
    #: The user's own file (~/.jupyter_agent/AGENTS.md), not a project's.
    own: bool = False


def user_memory_path() -> Path:
    return Path.home() / ".jupyter_agent" / "AGENTS.md"


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def _git_top(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def top_dir(start: Path, roots: Sequence[Path]) -> Path:
    """The outermost allowed root holding `start`, or the git work tree holding it if that is higher."""
    here = _real(start)
    tops = [r for r in (_real(root) for root in roots) if _inside(here, r)]
    repo = _git_top(here)
    if repo is not None:
        tops.append(repo)
    return min(tops, key=lambda r: len(r.parts)) if tops else here


def memory_dirs(start: Path, roots: Sequence[Path]) -> list[Path]:
    """From the top (see `top_dir`) down to `start`."""
    here = _real(start)
    top = top_dir(here, roots)
    chain = [here]
    while chain[-1] != top and chain[-1].parent != chain[-1]:
        chain.append(chain[-1].parent)
    return list(reversed(chain))


def _read(path: Path, areas: Sequence[Path], *, own: bool = False) -> MemoryFile | None:
    try:
        raw = read_confined(path, areas)
    except (OSError, ToolError):
        return None
    if b"\0" in raw[:8192]:
        return None
    text = raw.decode("utf-8", "replace").strip()
    if not text:
        return None
    # Masked where it leaves (the request body, `%agent memory` through the display gate); clip masks before it cuts.
    cut = max(len(text) - MAX_MEMORY_CHARS, 0)
    return MemoryFile(path=path, text=clip(text, MAX_MEMORY_CHARS, marker=""), cut=cut, own=own)


def load_memory(start: Path, roots: Sequence[Path], *, user_file: Path | None = None) -> list[MemoryFile]:
    """The memory files that exist, most general first (see the module docstring)."""
    found: list[MemoryFile] = []
    user = user_file if user_file is not None else user_memory_path()
    if user.is_file():
        loaded = _read(user, (user.parent,), own=True)
        if loaded is not None:
            found.append(loaded)
    dirs = memory_dirs(start, roots)
    areas = (*roots, dirs[0])
    for directory in dirs:
        for name in MEMORY_NAMES:
            path = directory / name
            loaded = _read(path, areas) if path.is_file() else None
            if loaded is not None:
                found.append(loaded)
    return found


def memory_section(files: Sequence[MemoryFile]) -> list[str]:
    """The system prompt's lines for the user's own memory file (none when there is none)."""
    own = [memory for memory in files if memory.own]
    if not own:
        return []
    lines = [
        "",
        "# Memory",
        "The user's standing instructions from their memory file. Follow them.",
    ]
    for memory in own:
        lines += ["", f"## {memory.path}", memory.text]
        if memory.cut:
            lines.append(f"[… {memory.cut} more characters of this file were not loaded]")
    return lines
