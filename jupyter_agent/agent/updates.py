"""Before each request: tell the model what changed since the conversation last told it, by appending.

- Facts (`facts.SessionFacts`): every line at the first request, later only the changed ones, as a text block of
  the pending user message, after its tool results and before the request it carries.
- Tools: the tools that may run now, compared with what the model was told. A model that takes
  mid-conversation system messages gets a system message of `tool_addition` / `tool_removal` blocks (see
  `prefix.Told.tool_changes`); for any other model (none of which checks a prefix) the tool list is redeclared
  — never shrunk: a tool that went away stays declared and is refused at dispatch — and the change is said in
  the facts.
Nothing is appended while the conversation ends with the assistant (a paused turn being continued): the docs
allow no tool change there, and the next user message carries it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .conversation import Conversation
from .deferral import untold
from .facts import SessionFacts, facts_text, remembered
from .models import Accepts
from .prefix import Definition, definition_name


@dataclass(frozen=True, kw_only=True)
class Surroundings:
    """Where the session reads what is true now: the facts, and the tools that may run (by definition name)."""

    facts: Callable[[], SessionFacts]
    #: The tools that may run now, given how many web searches this run made (its cap takes web search away).
    tools: Callable[[int], Mapping[str, Definition]]


@dataclass(frozen=True, kw_only=True)
class Said:
    """What `tell` appended (for the session's record and tests)."""

    facts: str | None = None
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


def tell(
    conversation: Conversation,
    now: Surroundings,
    *,
    accepts: Accepts,
    inline_tools: bool,
    searches_used: int = 0,
) -> Said:
    """Append what changed (facts, tools) to the pending tail of `conversation`; returns what was told."""
    prefix = conversation.prefix
    if prefix is None or conversation.ends_with_assistant:
        return Said()
    tools = untold(prefix.tools, conversation.told.tools, now.tools(searches_used))
    changes = conversation.told.tool_changes(tools, declared=prefix.tools, inline=inline_tools)
    facts = now.facts()
    if changes and accepts.system_messages:
        if changes.appended:
            conversation.fix_prefix(replace(prefix, tools=(*prefix.tools, *changes.appended)))
    elif changes:
        conversation.fix_prefix(replace(prefix, tools=redeclared(prefix.tools, tools)))
        facts = replace(facts, tools_added=changes.added, tools_removed=changes.removed)
    lines = facts.lines()
    text = facts_text(conversation.told.facts, lines)
    if text is not None:
        conversation.add_update([{"type": "text", "text": text}])
        conversation.told.facts = remembered(lines)
    if changes and accepts.system_messages:
        conversation.add_system(list(changes.blocks))
        conversation.told.betas |= changes.betas
    if text is not None or changes:
        conversation.state_unsaved = True
    return Said(facts=text, added=changes.added, removed=changes.removed)


def redeclared(declared: tuple[Definition, ...], now: Mapping[str, Definition]) -> tuple[Definition, ...]:
    """The tool list for a model without tool changes: the declared tools (a changed one replaced in place, a
    gone one kept: calls to it are refused with the reason), then the new ones."""
    names = [definition_name(d) for d in declared]
    kept: list[dict[str, Any]] = [_kept(d, now.get(name)) for name, d in zip(names, declared, strict=True)]
    return (*kept, *(d for name, d in now.items() if name not in names))


def _kept(declared: Definition, now: Definition | None) -> Definition:
    """A declared definition, replaced by its changed one; a deferred one the search finds stays deferred."""
    if now is None or {**now, "defer_loading": True} == declared:
        return declared
    return now
