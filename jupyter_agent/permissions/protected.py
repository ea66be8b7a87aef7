"""Protected paths: writing them can run code later or touch credentials, so a write always asks (and the Bash
sandbox keeps them read-only). Matched at any depth, on the path as written and its real path.

Besides the patterns, a top-level file or folder of a working directory that shadows a module the kernel imports
at start (`ipykernel_launcher.py`, `IPython/`, `zmq/`, `json.py` …) is protected (`startup_files`).
"""

from __future__ import annotations

from collections.abc import Iterable

from .rule_glob import glob_regex
from .startup_files import shadowed_module

#: Writes here can run code (git hooks and config, shell start-up files, IPython/Jupyter start-up and config,
#: editor and agent settings, Python start-up hooks) or hold credentials.
DEFAULT_PROTECTED_PATHS: tuple[str, ...] = (
    ".git/**",
    ".env*",
    ".ssh/**",
    ".ipython/**",
    ".jupyter/**",
    ".vscode/**",
    ".claude/**",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".gitconfig",
    "ipython_config.py",
    "jupyter_*_config.*",
    "sitecustomize.py",
    "usercustomize.py",
    "*.pth",
    # Claude Code's user settings (the projects it trusts) and this package's own user files (memory, trusted
    # projects): writing them changes what runs or what the agent is told.
    ".claude.json",
    ".jupyter_agent/**",
)


def protected_match(paths: Iterable[str], patterns: Iterable[str]) -> str | None:
    """The protected pattern (or kernel start-up module) one of `paths` matches, or None. Paths are shown
    relative to the working directory or a root, so a top-level one has no `/`."""
    patterns = tuple(patterns)
    for path in paths:
        for pattern in patterns:
            if glob_regex(pattern if pattern.startswith("/") else f"**/{pattern}", "path").match(path):
                return pattern
        module = shadowed_module(path)
        if module is not None:
            return f"a kernel start-up module ({module})"
    return None
