"""What `%agent rules` and `%agent skills` show, and the rules row of `%agent status`: each rule with where it came
from, and the project's skills, commands and sub-agents — as a `Report` (escaped HTML table + text)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ui.tables import Report, html_table

if TYPE_CHECKING:
    from ..project import ClaudeProject
    from ..settings import AgentSettings

#: Where this package's own rules come from, as the person sets them.
OWN_SOURCES = {
    "allow": "AgentMagics.allow (%config, %agent allow, Always allow)",
    "ask": "AgentMagics.ask (%config)",
    "deny": "AgentMagics.deny (%config, %agent deny)",
}
_ORDER = {"deny": 0, "ask": 1, "allow": 2}


def rule_rows(settings: AgentSettings, project: ClaudeProject | None) -> list[tuple[str, str, str]]:
    """(kind, rule, where it came from) for every rule: deny first; a project rule that is written with a path
    anchor shows what it means; an untrusted project's allow rules are listed as waiting."""
    rows: list[tuple[str, str, str]] = []
    if project is not None:
        settings_files = project.settings
        for kind in ("deny", "ask", "allow"):
            for rule in settings_files.rules(kind):
                shown = rule.text if rule.effective == rule.text else f"{rule.text}  → {rule.effective}"
                rows.append((kind, shown, str(rule.source)))
        for rule in settings_files.waiting():
            rows.append(("allow", rule.text, f"{rule.source} — not applied until %agent trust"))
    for kind in ("deny", "ask", "allow"):
        rows += [(kind, text, OWN_SOURCES[kind]) for text in getattr(settings, kind)]
    return sorted(rows, key=lambda row: _ORDER[row[0]])


def rules_text(rows: list[tuple[str, str, str]]) -> str:
    if not rows:
        return "no permission rules (the mode decides)"
    return "\n".join(f"{kind:<6}{rule}  ({source})" for kind, rule, source in rows)


def rules_report(settings: AgentSettings, project: ClaudeProject | None) -> Report:
    rows = rule_rows(settings, project)
    trust = ""
    if project is not None:
        trusted = project.settings.trusted
        trust = f"project {project.dirs.project_dir}: " + (
            f"trusted (by {trusted})"
            if trusted
            else "not trusted (%agent trust applies its hooks and allow rules)"
        )
    note = "Order: deny → ask → mode → allow; a deny always wins." + (f" {trust}" if trust else "")
    text = f"{rules_text(rows)}\n{note}"
    return Report(text=text, html=html_table(rows, headers=("", "rule", "from"), note=note))


def skills_report(project: ClaudeProject | None, prompts: list[tuple[str, str]]) -> Report:
    """The skills, commands, sub-agents and MCP prompts (`prompts`: command, description)."""
    rows: list[tuple[str, str, str]] = []
    if project is not None:
        library = project.library

        def replaces(kind: str, name: str) -> str:
            hidden = library.shadowing(kind, name)
            return f" · replaces the {hidden.hidden_where}'s ({hidden.hidden})" if hidden is not None else ""

        for skill in library.skills:
            limited = (
                f" · allowed-tools: {', '.join(skill.allowed_tools)}"
                if skill.allowed_tools is not None
                else ""
            )
            kind = f"skill ({skill.where}){limited}{replaces('skill', skill.name)}"
            rows.append((f"/{skill.name}", kind, skill.description))
        for command in library.commands:
            hint = f" {command.argument_hint}" if command.argument_hint else ""
            kind = f"command ({command.where}){replaces('command', command.name)}"
            rows.append((f"/{command.name}{hint}", kind, command.description))
        for agent in library.agents:
            tools = ", ".join(agent.tools) if agent.tools is not None else "all tools"
            kind = f"sub-agent · {tools} · {agent.model or 'same model'}{replaces('agent', agent.name)}"
            rows.append((agent.name, kind, agent.description))
    rows += [(f"/{command}", "MCP prompt", description) for command, description in prompts]
    if not rows:
        note = "no skills, commands or sub-agents: put them in .claude/skills/, .claude/commands/, .claude/agents/"
        return Report(text=note, html=html_table([], note=note))
    note = "%agent /name args runs a skill or command; sub-agents are Task's subagent_type"
    text = "\n".join(f"{name:<24} {kind}: {about}" for name, kind, about in rows) + f"\n{note}"
    return Report(text=text, html=html_table(rows, headers=("name", "what", "description"), note=note))


def plugins_text(project: ClaudeProject) -> str:
    """`%agent plugins`: each enabled plugin, where it is and who enabled it, what it brought (`plugin:name`
    skills, commands, sub-agents, hooks), then every line of what was skipped and why."""
    settings, library = project.settings, project.library
    lines: list[str] = []
    for plugin in settings.plugins.found:
        prefix = f"{plugin.name}:"
        brought = {
            "skills": [s.name for s in library.skills if s.name.startswith(prefix)],
            "commands": [c.name for c in library.commands if c.name.startswith(prefix)],
            "sub-agents": [a.name for a in library.agents if a.name.startswith(prefix)],
        }
        lines.append(f"{plugin.key}  {plugin.root}  (enabled in {plugin.enabled_by})")
        lines += [f"  {kind}: {', '.join(names)}" for kind, names in brought.items() if names]
        if plugin.hooks:
            lines.append(f"  hooks: {', '.join(sorted({h.event for h in plugin.hooks}))}")
        servers = [s.name for s in settings.mcp.servers if s.origin == f"plugin {plugin.key}"]
        lines += [f"  MCP servers: {', '.join(servers)}"] if servers else []
        if plugin.lsp_servers:
            names = ", ".join(f"LSP server {n}" for n in plugin.lsp_servers)
            lines.append(f"  not used here: {names} (this package has no LSP client)")
        root = str(plugin.root)
        lines += [f"  skipped: {w}" for w in library.warnings if w.startswith(f"jupyter_agent: {root}/")]
        lines += [
            f"  skipped: {w}" for w in settings.plugins.skipped if w.startswith(f"jupyter_agent: {root}/")
        ]
    others = [
        w
        for w in settings.plugins.skipped
        if not any(w.startswith(f"jupyter_agent: {p.root}/") for p in settings.plugins.found)
    ]
    lines += [f"skipped: {w}" for w in others]
    return "\n".join(lines) or "no plugins: enabledPlugins in a settings file turns an installed plugin on"
