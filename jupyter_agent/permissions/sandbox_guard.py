"""What the Bash sandbox keeps read-only inside the roots, and what it hides outside them.

The permission rules protect `.git/hooks`, `.git/config`, `.env*`, `.ipython/`, shell start-up files, kernel
start-up modules … from the Write and Edit tools; a sandboxed command could still write them, since the roots
are writable: `python3 -c "open('.git/hooks/pre-commit','w')…"` runs the payload at the user's next `git commit`,
outside any sandbox. So each protected path that exists in a root is bound read-only over the writable root,
and every directory between the root and it is bound onto itself: a mount point cannot be renamed or removed
(EBUSY), so `mv .git .git2` cannot swap the protected files out from under their mounts.

`.git` itself stays writable (commits need it); its `hooks/` and `config` are read-only, and a `.git` file (a
worktree's pointer) is read-only. A protected path that does not exist yet cannot be bound without creating it
on the user's disk; those that would run commands outside the sandbox later — a top-level module that shadows
one the kernel imports at its next start, a Claude Code project's settings (hooks), a git hook — are looked for
after each command and removed (`remove_new_startup_files`).

Hidden (an empty directory, or /dev/null, over them): the Jupyter runtime directory (kernel connection files
with their HMAC keys, server tokens), `~/.ssh`, `~/.aws`, `~/.config/gcloud`, `~/.netrc`, `~/.docker`, and a few
more credential stores. Looking for protected paths is bounded (depth, entries) so a huge tree cannot stall a
command; what lies beyond the bound is still guarded by the rules, not by the sandbox.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..base.confined import unlink_confined
from ..base.errors import ToolError
from .protected import DEFAULT_PROTECTED_PATHS, protected_match
from .startup_files import shadowed_module

#: Credential stores in the home directory: hidden from every command.
HIDDEN_IN_HOME = (
    ".ssh", ".aws", ".config/gcloud", ".netrc", ".docker", ".git-credentials", ".pypirc", ".kube", ".config/gh",
    ".azure", ".gnupg",
)  # fmt: skip
MAX_DEPTH = 6
MAX_ENTRIES = 20_000
_NOT_DESCENDED = frozenset({"node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", ".tox"})


@dataclass(frozen=True)
class Guarded:
    readonly: tuple[Path, ...]
    #: Directories bound onto themselves (writable) so that the read-only paths inside cannot be moved away.
    pinned: tuple[Path, ...]
    hidden_dirs: tuple[Path, ...]
    hidden_files: tuple[Path, ...]

    def bwrap_args(self) -> list[str]:
        """Pins and read-only binds, outer before inner (a later mount covers an earlier one), then hiding."""
        binds = [(p, "--bind") for p in self.pinned] + [(p, "--ro-bind") for p in self.readonly]
        binds.sort(key=lambda item: (len(item[0].parts), item[1] == "--ro-bind"))
        args = [arg for path, flag in binds for arg in (flag, str(path), str(path))]
        args += [arg for path in self.hidden_dirs for arg in ("--tmpfs", str(path))]
        args += [arg for path in self.hidden_files for arg in ("--ro-bind", "/dev/null", str(path))]
        return args


def guarded(roots: Sequence[Path], *, protected: Iterable[str] = DEFAULT_PROTECTED_PATHS) -> Guarded:
    patterns = tuple(protected)
    readonly: list[Path] = []
    for root in roots:
        readonly += _protected_in(root, patterns)
    readonly = sorted(set(readonly))
    pinned = sorted(
        {a for p in readonly for root in roots if p.is_relative_to(root) for a in _between(root, p)}
    )
    hidden_dirs, hidden_files = _hidden(roots)
    return Guarded(tuple(readonly), tuple(pinned), tuple(hidden_dirs), tuple(hidden_files))


def _between(root: Path, path: Path) -> list[Path]:
    """The directories strictly between `root` and `path`."""
    return [
        root / Path(*path.relative_to(root).parts[:i]) for i in range(1, len(path.relative_to(root).parts))
    ]


def _protected_in(root: Path, patterns: tuple[str, ...]) -> list[Path]:
    found: list[Path] = []
    seen = 0
    for directory, dirs, files in os.walk(root):
        here = Path(directory)
        rel = here.relative_to(root)
        depth = len(rel.parts)
        seen += len(dirs) + len(files)
        if seen > MAX_ENTRIES or depth >= MAX_DEPTH:
            dirs.clear()
        keep: list[str] = []
        for name in dirs:
            path, shown = here / name, (rel / name).as_posix()
            if not _own(path):
                continue  # another user's: the sandbox could neither write it nor bind it
            if name == ".git":
                found += [p for p in (path / "hooks", path / "config") if p.exists() and not p.is_symlink()]
            elif os.path.islink(path):
                continue  # a link is not followed by the walk; its target is outside or walked on its own
            elif protected_match([shown], patterns) is not None:
                found.append(path)
            elif name not in _NOT_DESCENDED and here.name != "site-packages":
                keep.append(name)
        dirs[:] = keep
        for name in files:
            path, shown = here / name, (rel / name).as_posix()
            if (
                _own(path)
                and not os.path.islink(path)
                and (name == ".git" or protected_match([shown], patterns) is not None)
            ):
                found.append(path)
    return found


def _own(path: Path) -> bool:
    """Whether the path belongs to this process's user (inside its user namespace, bwrap cannot even look at
    another user's private folders, so binding anything there would fail the whole command)."""
    try:
        return os.lstat(path).st_uid == os.getuid()
    except OSError:
        return False


def _hidden(roots: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    from jupyter_core.paths import jupyter_runtime_dir

    home = Path.home()
    candidates = [Path(jupyter_runtime_dir()), *(home / name for name in HIDDEN_IN_HOME)]
    dirs: list[Path] = []
    files: list[Path] = []
    for path in candidates:
        real = Path(os.path.realpath(path))
        if any(root.is_relative_to(real) for root in roots):
            continue  # hiding it would hide a root
        if real.is_dir():
            dirs.append(real)
        elif real.is_file():
            files.append(real)
    return dirs, files


#: Files that make something run commands outside the sandbox later, wherever a command creates them on the way
#: from a root down to the working directory: a Claude Code project's settings (their hooks run at the next tool
#: call of a trusted project) and a git hook (run by the user's next git command).
PROJECT_COMMAND_FILES = (".claude/settings.json", ".claude/settings.local.json")
GIT_HOOKS = ".git/hooks"


def startup_files(roots: Sequence[Path]) -> set[Path]:
    """The files in the roots that would run outside the sandbox: top-level modules that shadow one the kernel
    imports at start, and project settings and git hooks in the directories from a root down to another
    (the working directory is passed as a root too)."""
    found = _shadowing_modules(roots)
    for directory in _chains(roots):
        found |= {directory / name for name in PROJECT_COMMAND_FILES if (directory / name).is_file()}
        hooks = directory / GIT_HOOKS
        found |= {hooks / name for name in _names(hooks) if not name.endswith(".sample")}
    return found


def _chains(roots: Sequence[Path]) -> set[Path]:
    """Every root, and every directory between a root and another root inside it (the working directory)."""
    chains = set(roots)
    for outer in roots:
        for inner in roots:
            if inner != outer and inner.is_relative_to(outer):
                chains |= {outer, *_between(outer, inner)}
    return chains


def _shadowing_modules(roots: Sequence[Path]) -> set[Path]:
    found: set[Path] = set()
    for root in roots:
        try:
            entries = list(os.scandir(root))
        except OSError:
            continue
        for entry in entries:
            candidates = [entry.name]
            if entry.is_dir(follow_symlinks=False):
                candidates = [
                    f"{entry.name}/{n}" for n in _names(Path(entry.path)) if n.startswith("__init__.")
                ]
            found |= {root / c for c in candidates if shadowed_module(c) is not None}
    return found


def _names(directory: Path) -> list[str]:
    try:
        return os.listdir(directory)
    except OSError:
        return []


def remove_new_startup_files(roots: Sequence[Path], before: set[Path]) -> list[str]:
    """Remove the kernel start-up files a command created (they did not exist before it); what was removed."""
    removed: list[str] = []
    for path in sorted(startup_files(roots) - before):
        try:  # the package's own delete: only inside the roots, and a folder swapped for a link meanwhile is not followed
            unlink_confined(path, roots, exact=False)
        except (OSError, ToolError):
            continue
        removed.append(str(path))
    return removed


def removed_note(removed: list[str]) -> str:
    """What the model is told when the files a command created were removed."""
    return (
        f"the command created {', '.join(removed)}, which {_why(removed)} (outside any sandbox); removed. Name "
        "the file differently, or write it with the Write tool, which asks the user first"
    )


def _why(removed: list[str]) -> str:
    reasons: list[str] = []
    for path in map(Path, removed):
        if path.parent.name == "hooks" and path.parent.parent.name == ".git":
            reason = "git would run as a hook at the user's next git command"
        elif path.parent.name == ".claude":
            reason = "would give a Claude Code project hooks that run commands at the agent's next tool call"
        else:
            reason = "the kernel would import instead of its own modules at its next start"
        if reason not in reasons:
            reasons.append(reason)
    return "; ".join(reasons)
