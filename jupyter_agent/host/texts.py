"""What `%agent status`, `%agent tools`, `%agent history` and `%agent mcp` print: plain text, built from the
session."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..agent.session import AgentSession
    from ..settings import AgentSettings
    from ..tools.mcp import ServerStatus


def status_text(session: AgentSession, settings: AgentSettings) -> str:
    from ..tools.bubblewrap import check_sandbox

    status = session.status
    u = status.usage
    return "\n".join(
        [
            f"model:    {status.model} ({status.provider})",
            f"mode:     {settings.mode}",
            f"rules:    allow {_listed(settings.allow)} · ask {_listed(settings.ask)} · deny {_listed(settings.deny)}",
            f"runs:     {status.runs}{' (running)' if status.running else ''} · {status.messages} messages"
            f" · ~{status.estimated_tokens:,} of {status.context_window:,} context tokens",
            f"tokens:   {u.input:,} in · {u.output:,} out · cache {u.cache_read:,} read / {u.cache_write:,} written",
            f"cost:     ${status.cost_usd:.4f}",
            f"tools:    {', '.join(status.tools)}",
            f"bash:     {check_sandbox().describe(network=settings.bash_network)}",
        ]
    )


def _listed(rules: list[str]) -> str:
    return str(list(rules)) if rules else "—"


def tools_text(session: AgentSession) -> str:
    pool = session.pool
    active = pool.active()
    lines: list[str] = []
    for name, tool in active.items():
        flags = "read-only" if tool.read_only else tool.kind
        lines.append(
            f"{name:<16} {pool.source_of(name) or '?':<8} {flags:<10} {tool.description.splitlines()[0][:70]}"
        )
    hidden = sorted(set(pool.merged()) - set(active))
    if hidden:
        lines.append(f"hidden by deny rules: {', '.join(hidden)}")
    return "\n".join(lines)


def history_text(session: AgentSession) -> str:
    from ..agent.undo import describe_change

    journals = session.history
    if not journals:
        return "no runs yet"
    lines: list[str] = []
    for journal in journals:
        request = journal.request.strip().splitlines()[0][:80] if journal.request.strip() else ""
        undone = " (undone)" if journal.undone else ""
        lines.append(f"run {journal.run_id}: {request}{undone}")
        lines += [f"    {describe_change(c, session.ctx.sandbox)}" for c in journal.changes] or [
            "    no changes"
        ]
    return "\n".join(lines)


def mcp_text(statuses: list[ServerStatus]) -> str:
    """`notes  connected  4 tools` per server; why, under it, for one that failed or stopped."""
    if not statuses:
        return "no MCP servers are configured (%config AgentMagics.mcp_servers = {...}; docs/mcp.md)"
    width = max(len(s.name) for s in statuses)
    lines: list[str] = []
    for status in statuses:
        tools = (
            f"{status.tools} tool{'s' if status.tools != 1 else ''}" if status.state == "connected" else ""
        )
        lines.append(f"{status.name:<{width}}  {status.state:<10}  {tools}".rstrip())
        lines.extend(f"{'':<{width}}    {line}" for line in status.detail.splitlines() if line.strip())
    return "\n".join(lines)
