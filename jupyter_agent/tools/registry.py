"""The tool pool: sources merged by name (later wins), then the deny list (bare tool names from deny rules)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .core import AnyTool
from .permissions import Rule


@dataclass(kw_only=True)
class ToolPool:
    """Named sources (`builtin`, `user`, `mcp:<server>`), merged in insertion order."""

    sources: dict[str, list[AnyTool]] = field(default_factory=dict[str, list[AnyTool]])
    #: Tool-name globs (the bare names of deny rules): such a tool is never shown to the model.
    denied: list[str] = field(default_factory=list[str])

    def set_source(self, name: str, tools: Iterable[AnyTool]) -> None:
        self.sources[name] = list(tools)

    def add(self, source: str, tool: AnyTool) -> None:
        """Add or replace (by name) one tool in a source: re-running a cell that defines a tool replaces it."""
        tools = [t for t in self.sources.get(source, []) if t.name != tool.name]
        tools.append(tool)
        self.sources[source] = tools

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


def _any_match(patterns: Sequence[str], name: str) -> bool:
    """Only bare tool-name globs filter the pool; `Tool(pattern)` entries are permission rules, not filters."""
    rules = (Rule.parse(p) for p in patterns)
    return any(rule.pattern is None and rule.names(name) for rule in rules)
