"""Rules that name no tool: caught when they are set, with the likely name, since they would never match.

A deny rule that names no tool (`deny bash` for `Bash`) is a silent hole, so a rule must name a known tool,
a configured MCP server, or one of the path-access names (`Read`, `Edit`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from .policy import ACCESS_RULE_NAMES, Rule


class RuleNameError(ValueError):
    """A rule that names no tool: it would never match, which for a deny rule is a silent hole."""


def check_rule_names(
    rules: Iterable[str | Rule],
    known_tools: Iterable[str],
    *,
    mcp_servers: Iterable[str] = (),
    case_only: bool = False,
) -> None:
    """Raise RuleNameError for a rule naming no known tool (or a tool in the wrong case), with the likely name.

    `mcp_servers` are configured server names as they appear in tool names (`mcp__<server>__…`): their rules
    are accepted even while the server is not connected. `case_only` (when more tools may come later) refuses
    only a known name in the wrong case.
    """
    known = sorted(set(known_tools))
    servers = set(mcp_servers)
    for item in rules:
        rule = item if isinstance(item, Rule) else Rule.parse(item)
        if _names_something(rule, known, servers):
            continue
        if not case_only or any(name.lower() == rule.tool.lower() for name in known):
            raise RuleNameError(_unknown_tool_message(rule, known))


def _names_something(rule: Rule, known: list[str], servers: set[str]) -> bool:
    if rule.tool in ACCESS_RULE_NAMES or any(rule.names(name) for name in known):
        return True
    if rule.tool.startswith("mcp__"):
        server = rule.tool[5:].split("__")[0]
        connected = any(n.startswith(f"mcp__{server}__") for n in known)
        return server in servers and not connected  # a configured server whose tools are not known yet
    return False


def _unknown_tool_message(rule: Rule, known: list[str]) -> str:
    same_but_case = [name for name in known if name.lower() == rule.tool.lower()]
    close = same_but_case or difflib.get_close_matches(rule.tool, known)
    hint = ""
    if close:
        hint = f"; did you mean {Rule(close[0], rule.pattern)}?"
        if same_but_case:
            hint += " (tool names are case-sensitive)"
    return (
        f"UNKNOWN_TOOL_IN_RULE: the rule {rule} names no known tool{hint} "
        f"Known tools: {', '.join(known) or 'none'}; mcp__<server> names all of a server's tools"
    )
