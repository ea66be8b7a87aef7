"""What a conversation fixes at its first request, and what it has told the model since.

The API checks each thinking block sent back against its prefix — `system`, `tools` and every earlier message,
as they were when the block was made — and answers 400 (or drops the model's earlier reasoning) when any of them
changed. So a conversation is append-only, by construction:

- `Prefix`: the system prompt and the tool definitions, built once per conversation (its first run, or after
  `%agent reset`) and sent byte-identical in every request; a resumed conversation keeps the one it was saved with.
- `Told`: what the conversation has told the model since — the session's facts (`facts.py`) and which tools are
  available — so that a run tells only what changed, as an update appended at the end that stays there.
- Tool changes follow the docs: a model that takes mid-conversation system messages gets `tool_addition` /
  `tool_removal` blocks in one (an added tool by inline definition, with the `inline-tools` beta on the Anthropic
  API; elsewhere a deferred definition appended to `tools`, which the prefix check allows, added by reference);
  other models check no prefix, so their tool list is simply redeclared.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..base.json_values import is_array, is_object

Definition = dict[str, Any]

#: The beta that allows a tool definition inside a `tool_addition` block (Anthropic API).
INLINE_TOOLS_BETA = "inline-tools-2026-09-15"
#: The beta for tool changes by reference (Bedrock and Vertex too).
TOOL_CHANGES_BETA = "mid-conversation-tool-changes-2026-07-01"


@dataclass(frozen=True, kw_only=True)
class Prefix:
    """The system prompt and the tool definitions of one conversation, as sent in every request."""

    system: str
    tools: tuple[Definition, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"system": self.system, "tools": list(self.tools)}

    @staticmethod
    def from_json(value: Mapping[str, Any]) -> Prefix | None:
        system, tools = value.get("system"), value.get("tools")
        if not isinstance(system, str) or not is_array(tools):
            return None
        return Prefix(system=system, tools=tuple(t for t in tools if is_object(t)))


def definition_name(definition: Mapping[str, Any]) -> str:
    return str(definition.get("name", ""))


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@dataclass(frozen=True, kw_only=True)
class ToolChanges:
    """What to tell the model about its tools before the next request: tool-change blocks for a system message,
    definitions to append to `tools` (deferred, by-reference providers), and the names, for people."""

    blocks: tuple[dict[str, Any], ...] = ()
    appended: tuple[Definition, ...] = ()
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    betas: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed)


@dataclass(kw_only=True)
class Told:
    """What the conversation told the model after its prefix: facts and available tools (saved with it)."""

    #: The facts as last told, by label ("Permission mode": "plan: …").
    facts: dict[str, str] = field(default_factory=dict[str, str])
    #: The tools the model was last told it has, by name, with the definition it knows.
    tools: dict[str, Definition] = field(default_factory=dict[str, Definition])
    #: `prefix_mismatch_behavior` this conversation sends from now on ("drop_block" after a repaired 400).
    binding: str | None = None
    #: Betas the conversation's messages need from now on (a tool change sent earlier).
    betas: set[str] = field(default_factory=set[str])
    #: The opening's messages (the repository's files as tool results), handed over again after a compaction.
    opening: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])

    def to_json(self) -> dict[str, Any]:
        return {
            "facts": self.facts,
            "tools": self.tools,
            "binding": self.binding,
            "betas": sorted(self.betas),
            "opening": self.opening,
        }

    @staticmethod
    def from_json(value: Mapping[str, Any]) -> Told:
        facts, tools, betas = value.get("facts"), value.get("tools"), value.get("betas")
        binding, opening = value.get("binding"), value.get("opening")
        return Told(
            facts={str(k): str(v) for k, v in facts.items()} if is_object(facts) else {},
            tools={str(k): v for k, v in tools.items() if is_object(v)} if is_object(tools) else {},
            binding=binding if isinstance(binding, str) else None,
            betas={str(b) for b in betas} if is_array(betas) else set(),
            opening=[m for m in opening if is_object(m)] if is_array(opening) else [],
        )

    def tool_changes(
        self, now: Mapping[str, Definition], *, declared: tuple[Definition, ...], inline: bool
    ) -> ToolChanges:
        """The changes from the tools told to `now` (and `self.tools` becomes `now`). `inline`: added tools go
        as inline definitions; else a tool not declared yet is appended to `tools` deferred and added by name."""
        declared_names = {definition_name(d): d for d in declared}
        blocks: list[dict[str, Any]] = []
        appended: list[Definition] = []
        added: list[str] = []
        removed: list[str] = []
        for name in [n for n in self.tools if n not in now]:
            blocks.append(_removal(name))
            removed.append(name)
        for name, definition in now.items():
            known = self.tools.get(name)
            if known is not None and _same(known, definition):
                continue
            if known is not None:  # redefined: withdraw the old definition first
                blocks.append(_removal(name))
            reference = name in declared_names and _same(_undeferred(declared_names[name]), definition)
            if reference:
                blocks.append(_addition({"type": "tool_reference", "name": name}))
            elif inline:
                blocks.append(_addition({"type": "tool_definition", "definition": definition}))
            else:
                appended.append({**definition, "defer_loading": True})
                blocks.append(_addition({"type": "tool_reference", "name": name}))
            added.append(name)
        self.tools = dict(now)
        if not blocks:
            return ToolChanges()
        beta = INLINE_TOOLS_BETA if inline else TOOL_CHANGES_BETA
        return ToolChanges(
            blocks=tuple(blocks),
            appended=tuple(appended),
            added=tuple(added),
            removed=tuple(removed),
            betas=frozenset({beta}),
        )


def _undeferred(definition: Definition) -> Definition:
    return {k: v for k, v in definition.items() if k != "defer_loading"}


def _addition(tool: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_addition", "tool": tool}


def _removal(name: str) -> dict[str, Any]:
    return {"type": "tool_removal", "tool": {"type": "tool_reference", "name": name}}
