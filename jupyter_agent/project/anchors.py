"""Claude Code's path anchors in `Read(…)` / `Edit(…)` rules, made absolute so they mean the same wherever the
notebook runs.

| written | means | becomes |
|---|---|---|
| `//abs/path` | an absolute path | `/abs/path` |
| `~/path` | under the home directory | `<home>/path` |
| `/path` | relative to the settings file (the directory holding its `.claude/`) | `<that directory>/path` |
| `./path`, `dir/path` | relative to the project directory | `<project>/path` |
| `name` (no `/`) | that name at any depth, as in `.gitignore` | `<project>/**/name` |

A trailing `/` means the directory and what is in it (`dir/` → `dir/**`). Claude Code reads `./path` and `path`
relative to the directory it was started in; a notebook often runs in a subfolder of the project, so here they
are relative to the project directory (the top the settings were found from), where Claude Code would start.
Rules for other tools (`Bash(…)`, `WebFetch(domain:…)`, MCP tools) are left as they are.

Rules given in the notebook (`--allow`/`--deny`, `%agent allow/deny`, `AgentMagics.allow/ask/deny`) have no
settings file: they are anchored at the working directory, and a single leading `/` is an absolute path (deny
and ask rules also read it under the working directory, as Claude Code would).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..builtin_tools.files.edit import EditTool
from ..builtin_tools.files.glob import GlobTool
from ..builtin_tools.files.grep import GrepTool
from ..builtin_tools.files.multiedit import MultiEditTool
from ..builtin_tools.files.read import ReadTool
from ..builtin_tools.files.write import WriteTool
from ..builtin_tools.notebook.edit import NotebookEdit
from ..builtin_tools.notebook.read import NotebookRead
from ..permissions.policy import Rule
from ..permissions.rule_glob import escape_pattern

#: Tools whose rule pattern is a path.
PATH_RULE_TOOLS = frozenset(
    tool.name
    for tool in (ReadTool, EditTool, WriteTool, MultiEditTool, NotebookEdit, NotebookRead, GlobTool, GrepTool)
)


def _under(base: Path, pattern: str) -> str:
    prefix = escape_pattern(str(base).rstrip("/"))
    return f"{prefix}/{pattern}" if pattern else prefix


def anchored_pattern(pattern: str, *, base: Path, project_dir: Path, home: Path) -> str:
    """The absolute pattern a Claude Code path pattern stands for (see the module docstring)."""
    if pattern in ("*", "**"):
        return pattern
    directory = pattern.endswith("/") and not pattern.endswith("\\/")
    core = pattern.rstrip("/") if directory else pattern
    tail = "/**" if directory else ""
    if core.startswith("//"):
        return "/" + core.lstrip("/") + tail
    if core == "~" or core.startswith("~/"):
        return _under(home, core[2:] + tail)
    if core.startswith("/"):
        return _under(base, core.lstrip("/") + tail)
    if core.startswith("./"):
        return _under(project_dir, core[2:] + tail)
    if "/" in core:  # a separator in the middle anchors it, as in .gitignore
        return _under(project_dir, core + tail)
    return _under(project_dir, f"**/{core}{tail}")


def effective_rule(text: str, *, base: Path, project_dir: Path, home: Path) -> str:
    """The rule as the policy reads it; raises ValueError for a rule that does not parse."""
    rule = Rule.parse(text)
    if rule.tool not in PATH_RULE_TOOLS or rule.pattern is None:
        return str(rule)
    return str(Rule(rule.tool, anchored_pattern(rule.pattern, base=base, project_dir=project_dir, home=home)))


def session_rules(texts: Iterable[str], *, cwd: Path, restricting: bool) -> list[Rule]:
    """Rules given in the notebook, read with the same anchors (`*.sh` and `deploy.sh` at any depth, `./ci/**`,
    `~/x`, `//abs`) at the working directory. `/abs/path` is the absolute path it reads as; a deny or ask rule
    (`restricting`) also covers it under the working directory, as Claude Code reads `/path` (fail closed)."""
    rules: list[Rule] = []
    for text in texts:
        rule = Rule.parse(text)
        pattern = rule.pattern
        if rule.tool not in PATH_RULE_TOOLS or pattern is None:
            rules.append(rule)
            continue
        if pattern.startswith("/") and not pattern.startswith("//"):
            rules.append(rule)
            if not restricting:
                continue
        anchored = anchored_pattern(pattern, base=cwd, project_dir=cwd, home=Path.home())
        rules.append(Rule(rule.tool, anchored))
    return rules
