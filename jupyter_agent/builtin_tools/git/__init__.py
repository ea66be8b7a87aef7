"""Git: read-only `git status`, `diff`, `log`, `show` and `blame`, confined to the roots, for when Bash is off."""

from __future__ import annotations

from .tool import GitInput, GitTool

__all__ = ["GitInput", "GitTool"]
