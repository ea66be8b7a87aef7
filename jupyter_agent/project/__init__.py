"""A Claude Code project as it is: `.claude/` settings (permission rules, hooks), skills, sub-agents, commands.

Found from the notebook's directory up to the project directory (as AGENTS.md / CLAUDE.md are), plus the user's
`~/.claude/`. `ClaudeProject` is what the host keeps per session; `slash.py` resolves `%agent /name args`.
"""

from .claude import ClaudeProject, ProjectLibrary, ProjectSettings
from .definitions import Command
from .settings_file import SourcedRule

__all__ = ["ClaudeProject", "Command", "ProjectLibrary", "ProjectSettings", "SourcedRule"]
