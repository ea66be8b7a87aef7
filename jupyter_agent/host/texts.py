"""What `%agent status`, `%agent tools` and `%agent history` show, built from the session, as a `Report` (an
HTML table and its text/plain twin, from the same rows); and the text of `%agent mcp`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..agent.pricing import OFFLINE_DEMO, offline_demo, price_for
from ..builtin_tools.shell import BashTool
from ..masking import shorten
from ..ui.tables import Report, html_table
from .endpoint_text import endpoint_text, key_text

if TYPE_CHECKING:
    from ..agent.session import AgentSession
    from ..builtin_tools.mcp import ServerStatus
    from ..project import ClaudeProject
    from ..settings import AgentSettings


def status_report(
    session: AgentSession,
    settings: AgentSettings,
    project: ClaudeProject | None = None,
    *,
    extra: Sequence[tuple[str, str]] = (),
) -> Report:
    """`%agent status`; `extra`: rows of the parts above the host (the MCP server of `%agent serve`)."""
    from .project_texts import rule_rows, rules_text

    status = session.status
    u = status.usage
    budget = f" (session budget ${status.session_budget_usd:.2f})" if status.session_budget_usd else ""
    rows = [
        ("model", OFFLINE_DEMO if offline_demo() else f"{status.model} ({status.provider})"),
        ("endpoint", endpoint_text(settings)),
        ("key", key_text(settings)),
        ("mode", _mode_text(status.mode, settings.mode)),
        ("rules", rules_text(rule_rows(settings, project))),
        *_env_rows(project),
        (
            "runs",
            f"{status.runs}{' (running)' if status.running else ''} · {status.messages} messages"
            f" · ~{status.estimated_tokens:,} of {status.context_window:,} context tokens",
        ),
        (
            "tokens",
            f"{u.input:,} in · {u.output:,} out · cache {u.cache_read:,} read / {u.cache_write:,} written"
            + (
                f" · {u.web_searches} web search{'es' if u.web_searches != 1 else ''}"
                if u.web_searches
                else ""
            ),
        ),
        (
            "cost",
            OFFLINE_DEMO
            if offline_demo()
            else f"n/a (no price is known for {status.model})"
            if price_for(status.model) is None
            else f"last run ${status.last_run_cost_usd:.4f} · session ${status.cost_usd:.4f}{budget}"
            f" · cache-read share {u.cache_read_share:.0%}",
        ),
        ("tools", ", ".join(status.tools)),
        *_notebook_rows(session),
        ("bash", _bash_text(settings, offered=BashTool.name in status.tools)),
        ("memory", ", ".join(str(p) for p in status.memory) or "—"),
        ("thinking", thinking_text(status.binding, status.transformations)),
        ("saved to", str(status.saved_to) if status.saved_to is not None else "— (nothing saved yet)"),
        *_todo_rows(session),
        *extra,
    ]
    text = "\n".join(f"{key + ':':<10}{value}".replace("\n", "\n" + " " * 10) for key, value in rows)
    return Report(text=text, html=html_table(rows))


def _env_rows(project: ClaudeProject | None) -> list[tuple[str, str]]:
    """The names a project's `env` sets for the commands run for it (values are not shown: they may be keys)."""
    names = sorted(project.settings.env) if project is not None else []
    return [("env", f"{', '.join(names)} (for hooks, ! lines and Bash; values not shown)")] if names else []


def _bash_text(settings: AgentSettings, *, offered: bool) -> str:
    """Whether the model has Bash, then the sandbox its commands run in (or would, once it is on)."""
    from ..permissions.bubblewrap import check_sandbox

    sandbox = check_sandbox().describe(
        network=settings.bash_network, required=settings.bash_sandbox == "required"
    )
    if offered:
        return sandbox
    return f"off (%config AgentMagics.enable_bash = True, or a rule naming Bash, turns it on); when on: {sandbox}"


def _notebook_rows(session: AgentSession) -> list[tuple[str, str]]:
    """Which frontend holds the notebook, how the agent changes it there, and whether questions can be answered."""
    from ..notebook.access import decide_write

    notebooks = session.ctx.services.notebooks
    frontend = notebooks.known()
    decision = decide_write(frontend, None)
    if decision.kind == "live":
        backend = "live: changes go to the page (the user can undo them); the file is saved by the user"
    elif decision.kind == "proposal":
        backend = f"proposals: changes are shown to apply, never written — {decision.reason}"
    elif decision.kind == "file":
        backend = "file: read and written with nbformat"
    elif decision.path is None and frontend.name is None:
        backend = "— (notebook tools need notebook_path)"
    else:
        backend = f"none: {decision.refused().message}"
    rows = [
        ("notebook", frontend.shown_name or "— (not known)"),
        (
            "frontend",
            frontend.label if frontend.kind == "none" else f"{frontend.label} ({frontend.evidence})",
        ),
        ("backend", backend),
    ]
    signals = notebooks.signals
    if signals.in_kernel and signals.pump_missing:
        rows.append(("approvals", f"cannot be answered in the cell: {signals.pump_missing}"))
    return rows


def thinking_text(binding: str | None, transformations: tuple[dict[str, object], ...]) -> str:
    """Whether earlier reasoning goes back as it came, and what the API last said it changed in a request."""
    kept = (
        "earlier reasoning sent back as it came"
        if binding is None
        else f"prefix_mismatch_behavior {binding} (the API refused earlier reasoning once; kept for this conversation)"
    )
    if not transformations:
        return kept
    changed = "; ".join(
        f"{t.get('type')} {t.get('path')} ({t.get('reason')})" for t in transformations[:5]
    ) + (f"; … {len(transformations) - 5} more" if len(transformations) > 5 else "")
    return f"{kept}\nthe API's input_transformations in the last request: {changed}"


def _mode_text(mode: str, setting: str) -> str:
    """The mode in force, and where it came from when that is not the `mode` setting (a project's defaultMode)."""
    return (
        mode if mode == setting else f"{mode} (the project's permissions.defaultMode; %agent mode sets yours)"
    )


def memory_text(session: AgentSession) -> str:
    """`%agent memory`: which memory files the system prompt holds, in order, with their size."""
    from ..agent.memory import MEMORY_NAMES, user_memory_path

    files = session.memory
    if not files:
        return (
            f"no memory files: put {' or '.join(MEMORY_NAMES)} in the notebook's directory (or above it, up to "
            f"the top root), or your own in {user_memory_path()}; %agent reset reads them again"
        )
    lines = [
        "memory (most general first; yours is in the system prompt, a project's reaches the model as tool results; "
        "%agent reset reads them again):"
    ]
    for memory in files:
        cut = f", cut: {memory.cut:,} more not loaded" if memory.cut else ""
        lines.append(f"  {memory.path}  ({len(memory.text):,} characters{cut})")
    return "\n".join(lines)


def sessions_text(session: AgentSession) -> str:
    """`%agent sessions`: this notebook's saved sessions, newest first."""
    if session.project is None:
        return "sessions are not saved (%config AgentMagics.save_sessions = True to save them)"
    found = session.saved_sessions()
    if not found:
        return f"no saved sessions for {session.project}"
    current = session.recorder.id if session.recorder is not None else None
    lines = [f"saved sessions for {session.project} (newest first; %agent resume ID continues one):"]
    for saved in found:
        first = " ".join(saved.first_request.split())
        first = shorten(first, 60)
        mark = " (this session)" if saved.id == current else ""
        lines.append(
            f"  {saved.id}  {saved.created[:16].replace('T', ' ')}  ${saved.cost_usd:.4f}  {saved.runs} run(s)"
            f"  {first!r}{mark}"
        )
    return "\n".join(lines)


def _todo_rows(session: AgentSession) -> list[tuple[str, str]]:
    """The current TodoWrite checklist, if the agent keeps one."""
    from ..builtin_tools.workflow import todo_list

    todos = todo_list(session.ctx)
    if not todos.items:
        return []
    return [("todos", f"{todos.counts()}\n{todos.text()}")]


def tools_report(session: AgentSession) -> Report:
    from ..agent.deferral import deferral_note

    pool = session.pool
    active = pool.active()
    rows = [
        (
            name,
            pool.source_of(name) or "?",
            "read-only" if tool.read_only else tool.kind,
            _first_line(tool.description),
        )
        for name, tool in active.items()
    ]
    lines = [f"{name:<16} {source:<8} {kind:<10} {shorten(about, 70)}" for name, source, kind, about in rows]
    hidden = sorted(set(pool.merged()) - set(active))
    notes = [f"hidden by deny rules: {', '.join(hidden)}"] if hidden else []
    notes += [f"not offered: {name}: {why}" for name, why in sorted(pool.withheld.items())]
    prefix = session.conversation.prefix
    deferral = deferral_note(prefix.tools if prefix else None, pool, provider=session.config.provider)
    notes += [deferral] if deferral else []
    return Report(
        text="\n".join([*lines, *notes]),
        html=html_table(
            rows, headers=("tool", "source", "kind", "what it does"), note=" · ".join(notes), label_columns=3
        ),
    )


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


def history_report(session: AgentSession) -> Report:
    from ..undo.run import describe_change
    from ..undo.variables import describe_step

    journals = session.history
    if not journals:
        return Report(text="no runs yet", html=html_table([], note="no runs yet"))
    lines: list[str] = []
    rows: list[tuple[str, str, str]] = []
    for journal in journals:
        request = shorten(_first_line(journal.request), 80)
        request = f"[{journal.by}, outside] {request}" if journal.by else request
        undone = " (rewound)" if journal.rewound else " (undone)" if journal.undone else ""
        changes = [
            *(describe_change(c, session.ctx.sandbox) for c in journal.changes),
            *(describe_step(step) for step in journal.kernel),
        ] or ["no changes" if journal.changes_known else "changes not known (resumed from a saved session)"]
        lines.append(f"run {journal.run_id}: {request}{undone}")
        lines += [f"    {change}" for change in changes]
        rows.append((f"{journal.run_id}{undone}", request, "\n".join(changes)))
    return Report(text="\n".join(lines), html=html_table(rows, headers=("run", "request", "changes")))


def mcp_text(statuses: list[ServerStatus]) -> str:
    """`notes  connected  4 tools  (project: /p/.mcp.json)` per server; why, under it, for one that failed,
    stopped, waits for approval or is disabled."""
    if not statuses:
        return (
            "no MCP servers are configured (%config AgentMagics.mcp_servers = {...}, a project's .mcp.json, or "
            "~/.claude.json; docs/mcp.md)"
        )
    width = max(len(s.name) for s in statuses)
    lines: list[str] = []
    for status in statuses:
        tools = (
            f"{status.tools} tool{'s' if status.tools != 1 else ''}" if status.state == "connected" else ""
        )
        source = f"  ({status.source})" if status.source else ""
        state = f"reconnecting (try {status.try_number})" if status.state == "reconnecting" else status.state
        lines.append(f"{status.name:<{width}}  {state:<10}  {tools}".rstrip() + source)
        lines.extend(f"{'':<{width}}    {line}" for line in status.detail.splitlines() if line.strip())
    return "\n".join(lines)
