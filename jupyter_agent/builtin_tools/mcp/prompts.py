"""MCP prompts as commands: `%agent /mcp__<server>__<prompt> args` runs the prompt the server returns.

The arguments are split as a shell would and given to the prompt's arguments in the order the server lists
them (the last one takes the rest), as Claude Code does. The prompt's text messages become the request.
Everything runs on the loop the servers live on.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp.types as mcp_types

from .names import tool_name
from .paging import pages

if TYPE_CHECKING:
    from .client import ServerConnection
    from .servers import McpServers


class PromptError(ValueError):
    """The prompt cannot be run; the message says why and what there is."""


@dataclass(frozen=True, kw_only=True)
class PromptCommand:
    """One MCP prompt as `%agent` offers it."""

    command: str
    description: str
    arguments: tuple[str, ...]
    required: frozenset[str]
    server: str
    prompt: str


async def _listed(server: ServerConnection) -> list[Any]:
    client = server.client
    if client is None or client.server_capabilities.prompts is None:
        return []
    return await pages(lambda cursor: client.list_prompts(cursor=cursor), "prompts")


async def prompt_commands(servers: McpServers) -> list[PromptCommand]:
    """The prompts of every connected server that offers prompts."""
    found: list[PromptCommand] = []
    for server in servers.connected():
        for prompt in await _listed(server):
            found.append(
                PromptCommand(
                    command=tool_name(server.name, prompt.name),
                    description=" ".join((prompt.description or "").split()),
                    arguments=tuple(a.name for a in prompt.arguments or ()),
                    required=frozenset(a.name for a in prompt.arguments or () if a.required),
                    server=server.name,
                    prompt=prompt.name,
                )
            )
    return found


def _arguments(words: list[str], names: tuple[str, ...], required: frozenset[str]) -> dict[str, str]:
    given = dict(zip(names, words, strict=False))
    if len(words) > len(names) and names:
        given[names[-1]] = " ".join(words[len(names) - 1 :])
    missing = [name for name in names if name in required and name not in given]
    if missing:
        raise PromptError(f"missing argument(s) {', '.join(missing)} (the prompt takes: {' '.join(names)})")
    return given


async def prompt_request(servers: McpServers, command: str, args: str) -> str:
    """The request `%agent /<command> args` sends: the prompt's text messages, one after the other."""
    commands = {c.command: c for c in await prompt_commands(servers)}
    chosen = commands.get(command)
    if chosen is None:
        listed = (
            ", ".join(f"/{name}" for name in sorted(commands)) or "none (no connected server offers prompts)"
        )
        raise PromptError(f"no MCP prompt /{command}; the MCP prompts are: {listed}")
    server = servers.server(chosen.server)
    client = server.client if server is not None else None
    if client is None:
        raise PromptError(f"MCP server '{chosen.server}' is not connected (`%agent mcp` shows its state)")
    try:
        words = shlex.split(args)
    except ValueError:
        words = args.split()
    arguments = _arguments(words, chosen.arguments, chosen.required)
    try:
        result = await client.get_prompt(chosen.prompt, arguments)
    except Exception as exc:
        raise PromptError(
            f"MCP server '{chosen.server}' could not give the prompt {chosen.prompt}: {exc}"
        ) from exc
    texts = [m.content.text for m in result.messages if isinstance(m.content, mcp_types.TextContent)]
    if not texts:
        raise PromptError(f"the MCP prompt /{command} returned no text to send")
    return "\n\n".join(texts)
