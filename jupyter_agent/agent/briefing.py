"""What a conversation is given at its start and what tools may run: the session's side of `updates.py`.

- `open_conversation`: the system prompt and the tools, fixed at the first request (`prefix.Prefix`), and the
  repository's files handed over as tool results (`opening.py`).
- `first_tools`: the tools a conversation declares (many MCP tools deferred, `deferral.py`).
- `tools_now`: the tools that may run now, by the name the model calls them (web search not once the run used
  its searches).
- `unsendable`: why a conversation cannot go to a model at all (said before anything is sent).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..builtin_tools.skill import SKILL_TOOL_NAME, SkillTool, skill_listing
from ..tools.registry import ToolPool
from .boundary import valid_for_model
from .conversation import Conversation
from .deferral import deferred, mcp_tool_names
from .memory import MemoryFile
from .models import accepts
from .opening import OpeningFile, opening_messages
from .prefix import Definition, Prefix, definition_name


def tools_now(pool: ToolPool, searches_used: int = 0) -> dict[str, Definition]:
    """The tools that may run now, by the name the model calls them; web search not once the run used its
    searches (the tool's `max_uses`, from `web_search_max_uses`)."""
    found: dict[str, Definition] = {}
    for tool in pool.active().values():
        definition = tool.to_param()
        if searches_used and searches_used >= int(definition.get("max_uses") or 0) > 0:
            continue
        found[definition_name(definition)] = definition
    return found


def first_tools(pool: ToolPool, searches_used: int, provider: str) -> dict[str, Definition]:
    """The tools a new conversation declares: past a size of MCP tools, those deferred behind a tool search
    (`deferral.py`)."""
    return deferred(tools_now(pool, searches_used), mcp_tool_names(pool), provider=provider)


def project_files(memory: Sequence[MemoryFile]) -> list[OpeningFile]:
    """The repository's memory files (AGENTS.md / CLAUDE.md), handed to the model as tool results."""
    return [OpeningFile(path=str(m.path), text=m.text, cut=m.cut) for m in memory if not m.own]


def open_conversation(
    conversation: Conversation,
    *,
    system: str,
    tools: dict[str, Definition],
    pool: ToolPool,
    memory: Sequence[MemoryFile],
) -> None:
    """A new conversation: its system prompt and tools, fixed now, and the repository's files as tool results."""
    if conversation.prefix is not None:
        return
    conversation.fix_prefix(
        Prefix(system=valid_for_model(system), tools=tuple(valid_for_model(list(tools.values()))))
    )
    if len(conversation) == 0:
        skill = pool.active().get(SKILL_TOOL_NAME)
        listing = skill_listing(list(skill.skills.values())) if isinstance(skill, SkillTool) else None
        opening = opening_messages(project_files(memory), skill_listing=listing, tools=list(tools))
        conversation.told.opening = opening
        conversation.add_messages(opening)


def unsendable(conversation: Conversation, model: str) -> str | None:
    """Why this conversation cannot go to `model` at all, or None."""
    if conversation.has_system_messages() and not accepts(model).system_messages:
        return (
            f"this conversation holds mid-conversation system messages (tool changes), which '{model}' does not "
            "take; start a new conversation for it (`%%agent --new`, or `%agent reset`), or switch back to the "
            "model it began with"
        )
    return None
