"""The reference of the magics, the settings and the tools, made from their declarations: `RUN_FLAGS`, the
subcommand table's rows, the settings' traits and the built-in tools' definitions. `%agent help` and the
documentation site's reference pages (`docs/conf.py` writes them at each build) are both made here, so the two
cannot say different things and neither is written by hand."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..ui.html import NO_MATH, esc
from ..ui.tables import Report
from .options import RUN_FLAGS

#: (usage, help) of one line of the magics' table.
Row = tuple[str, str]

CELL_ROW: Row = ("%%agent [options]", "the cell body is the request; the conversation continues across cells")
REQUEST_ROW: Row = ("%agent REQUEST…", "any other line is a one-line request, e.g. %agent why is df empty?")
SLASH_ROW: Row = (
    "%agent /NAME ARGS",
    "run a skill, a custom command (.claude/commands/NAME.md) or an MCP prompt (/mcp__server__prompt)",
)
#: What a newcomer needs first, in this order; the help lists them above the whole table.
FIRST_STEPS: tuple[str, ...] = ("status", "review", "undo", "reset", "help")


@dataclass(frozen=True, kw_only=True)
class SettingEntry:
    name: str
    kind: str
    default: str
    help: str


@dataclass(frozen=True, kw_only=True)
class ToolEntry:
    name: str
    #: How a session gets it: "always", or the setting that turns it on.
    offered: str
    read_only: bool
    summary: str
    inputs: tuple[str, ...]


def flag_rows() -> list[Row]:
    return [(f"{flag.flag} {flag.metavar}".rstrip(), flag.help) for flag in RUN_FLAGS]


def cell_usage() -> str:
    """`%%agent` with every flag, as one usage line."""
    flags = " ".join(f"[{flag.flag} {flag.metavar}]".replace(" ]", "]") for flag in RUN_FLAGS)
    return f"%%agent {flags}"


def setting_entries() -> list[SettingEntry]:
    """Every `%config AgentMagics.<name>` setting, by name, with its type, default and help."""
    from ..settings import AgentSettings

    computed: dict[str, Any] = getattr(AgentSettings, "_trait_default_generators", {})
    entries: list[SettingEntry] = []
    for name, trait in sorted(AgentSettings.class_traits(config=True).items()):
        default = "computed (see the description)" if name in computed else trait.default_value_repr()
        entries.append(
            SettingEntry(name=name, kind=type(trait).__name__, default=default, help=str(trait.help or ""))
        )
    return entries


def tool_entries() -> list[ToolEntry]:
    """The built-in tools and the opt-in ones, from their definitions (what the model is sent)."""
    from ..builtin_tools.catalog import OPT_IN_TOOLS, builtin_tools

    made = [("always", tool) for tool in builtin_tools()]
    made += [
        (f"{opt_in.setting} (or a rule naming {opt_in.name})", t)
        for opt_in in OPT_IN_TOOLS
        for t in opt_in.make()
    ]
    entries: list[ToolEntry] = []
    for offered, tool in made:
        param: dict[str, Any] = tool.to_param()
        description = str(param.get("description") or getattr(tool, "description", "") or "")
        properties: dict[str, Any] = param.get("input_schema", {}).get("properties", {})
        entries.append(
            ToolEntry(
                name=tool.name,
                offered=offered,
                read_only=bool(getattr(tool, "read_only", False)),
                summary=description.strip().split("\n", 1)[0] or "Anthropic's server-side tool",
                inputs=tuple(properties),
            )
        )
    return entries


def _cell(text: str) -> str:
    """A Markdown table cell: no pipe or line break breaks the row."""
    return " ".join(text.replace("|", "\\|").split())


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def magics_markdown(commands: Sequence[Row]) -> str:
    """The magics' reference page: the cell magic with its flags, then every `%agent` line."""
    flags = [(f"`{usage}`", text) for usage, text in flag_rows()]
    lines = [(f"`{usage}`", text) for usage, text in [*commands, SLASH_ROW, REQUEST_ROW]]
    return "\n\n".join(
        [
            "# Magics",
            "Generated from the package's own tables (`RUN_FLAGS`, `SUBCOMMANDS`), the rows `%agent help` shows.",
            "## `%%agent`",
            f"`{cell_usage()}`: {CELL_ROW[1]}.",
            _table(("flag", "what it does"), flags),
            "## `%agent` lines",
            _table(("line", "what it does"), lines),
        ]
    )


def settings_markdown() -> str:
    rows = [(f"`{e.name}`", e.kind, f"`{e.default}`", e.help) for e in setting_entries()]
    return "\n\n".join(
        [
            "# Settings",
            "Every setting is a traitlet of `AgentMagics`: `%config AgentMagics.<name> = …` in a cell, or "
            "`c.AgentMagics.<name> = …` in `ipython_config.py`. Generated from `jupyter_agent/settings.py`.",
            _table(("setting", "type", "default", "what it does"), rows),
        ]
    )


def tools_markdown() -> str:
    rows = [
        (
            f"`{e.name}`",
            e.offered,
            "yes" if e.read_only else "no",
            ", ".join(f"`{name}`" for name in e.inputs) or "—",
            e.summary,
        )
        for e in tool_entries()
    ]
    return "\n\n".join(
        [
            "# Tools",
            "The tools the model is offered, generated from their definitions (names and inputs follow Claude "
            "Code's). `%agent tools` lists those of a session, with your own and the MCP servers'.",
            _table(("tool", "offered", "read-only", "inputs", "what it does"), rows),
        ]
    )


def help_report(commands: Sequence[Row]) -> Report:
    """`%agent help`: the first steps, then every flag, line and setting; HTML for a notebook, text for a
    terminal. The rows are the ones of the magics' reference page."""
    by_usage = {usage.split()[1]: (usage, text) for usage, text in commands}
    first = [by_usage[name] for name in FIRST_STEPS if name in by_usage]
    settings = [(e.name, first_sentence(e.help)) for e in setting_entries()]
    sections: list[tuple[str, list[Row]]] = [
        ("Start here", [CELL_ROW, *first]),
        ("%%agent options (first line of the cell)", flag_rows()),
        ("%agent lines", [*commands, SLASH_ROW, REQUEST_ROW]),
        ("Settings: %config AgentMagics.<name> = …", settings),
    ]
    return Report(text=_help_text(sections), html=_help_html(sections))


def first_sentence(text: str) -> str:
    """Up to the first full stop that ends a sentence (not the one of "e.g. ['Edit…"), without it."""
    return re.split(r"(?<=\.)\s+(?=[A-Z])", text.strip(), maxsplit=1)[0].rstrip(".")


def _inline(text: str) -> str:
    """Escaped text whose `backticked` parts are code."""
    parts = esc(text).split("`")
    if len(parts) % 2 == 0:  # an odd backtick: leave the text as it is
        return esc(text)
    return "".join(f"<code>{part}</code>" if i % 2 else part for i, part in enumerate(parts))


def _help_text(sections: Sequence[tuple[str, Sequence[Row]]]) -> str:
    width = 22
    parts: list[str] = []
    for title, rows in sections:
        parts.append(title)
        parts += [
            f"  {usage:<{width}} {text}" if len(usage) <= width else f"  {usage}\n  {'':<{width}} {text}"
            for usage, text in rows
        ]
        parts.append("")
    return "\n".join(parts).rstrip()


def _help_html(sections: Sequence[tuple[str, Sequence[Row]]]) -> str:
    cell = "text-align:left;vertical-align:top;padding:1px 12px 1px 0;"
    parts: list[str] = []
    for title, rows in sections:
        body = "".join(
            f'<tr><td style="{cell}white-space:nowrap"><code>{esc(usage)}</code></td>'
            f'<td style="{cell}overflow-wrap:anywhere">{_inline(text)}</td></tr>'
            for usage, text in rows
        )
        parts.append(
            f'<div style="font-weight:600;margin:8px 0 2px">{esc(title)}</div>'
            f'<table class="jp-agent-table" style="border-collapse:collapse;max-width:100%;font-size:var(--jp-ui-font-size1,12px)">'
            f"<tbody>{body}</tbody></table>"
        )
    return f'<div class="jp-agent-help {NO_MATH}">{"".join(parts)}</div>'
