"""The tool pool: sources merged by name (later wins), then the deny list (bare tool names from deny rules).

A tool the model was shown stays declared for its whole conversation (the tool list never changes under the
API's prefix check), so the pool also remembers where every tool it ever had came from: a call to one that is
gone or denied now is refused with the reason (`unavailable`), not as an unknown tool."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..permissions.policy import Rule
from .core import AnyTool


@dataclass(kw_only=True)
class ToolPool:
    """Named sources (`builtin`, `user`, `mcp:<server>`), merged in insertion order."""

    sources: dict[str, list[AnyTool]] = field(default_factory=dict[str, list[AnyTool]])
    #: Tool-name globs (the bare names of deny rules): such a tool is not offered to the model.
    denied: list[str] = field(default_factory=list[str])
    #: Every tool name the pool ever had, and the source it came from last.
    seen: dict[str, str] = field(default_factory=dict[str, str])
    #: Tools the settings asked for that are not offered (the endpoint cannot run them, …), and why.
    withheld: dict[str, str] = field(default_factory=dict[str, str])

    def configure(
        self, *, denied: Sequence[str], sources: Mapping[str, Iterable[AnyTool]], withheld: Mapping[str, str]
    ) -> None:
        """A run's configuration: the deny list, the sources it decides, what it does not offer and why."""
        self.denied = list(denied)
        for name, tools in sources.items():
            self.set_source(name, tools)
        self.withheld = dict(withheld)

    def set_source(self, name: str, tools: Iterable[AnyTool]) -> None:
        self.sources[name] = list(tools)
        self.seen.update({tool.name: name for tool in self.sources[name]})

    def add(self, source: str, tool: AnyTool) -> None:
        """Add or replace (by name) one tool in a source: re-running a cell that defines a tool replaces it."""
        tools = [t for t in self.sources.get(source, []) if t.name != tool.name]
        tools.append(tool)
        self.set_source(source, tools)

    def unavailable(self, name: str) -> tuple[bool, str] | None:
        """(denied by a rule, why) for a tool the pool had that is not offered now (a deny rule, its source
        gone); None for a name it never had."""
        rule = next((p for p in self.denied if _any_match([p], name)), None)
        if rule is not None and name in self.merged():
            return True, f"{name} is denied by the rule '{rule}' (a deny rule of this session)"
        source = self.seen.get(name)
        if source is None or name in self.merged():
            return None
        return False, (
            f"{name} is not available now: {_source_text(source)} no longer offers it; do not call it until "
            "you are told it is back"
        )

    def merged(self) -> dict[str, AnyTool]:
        merged: dict[str, AnyTool] = {}
        for tools in self.sources.values():
            for tool in tools:
                merged.pop(tool.name, None)
                merged[tool.name] = tool
        return merged

    def active(self) -> dict[str, AnyTool]:
        return {name: tool for name, tool in self.merged().items() if self.is_enabled(name)}

    def is_enabled(self, name: str) -> bool:
        return not _any_match(self.denied, name)

    def source_of(self, name: str) -> str | None:
        found = None
        for source, tools in self.sources.items():
            if any(t.name == name for t in tools):
                found = source
        return found


def _source_text(source: str) -> str:
    if source.startswith("mcp:"):
        return f"the MCP server '{source.removeprefix('mcp:')}'"
    if source == "user":
        return "the user's @tool functions"
    return f"the '{source}' tools of this session (a setting or rule that enabled it changed)"


def _any_match(patterns: Sequence[str], name: str) -> bool:
    """Only bare tool-name globs filter the pool; `Tool(pattern)` entries are permission rules, not filters."""
    rules = (Rule.parse(p) for p in patterns)
    return any(rule.pattern is None and rule.names(name) for rule in rules)
