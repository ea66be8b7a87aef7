"""The session's facts the model needs — notebook, working directory, kernel, permission mode, date, the user's
instructions — told at the start of a conversation and, when one changes, as an update appended at the end.

They are never in the system prompt: it stays byte-identical for the whole conversation (preserved thinking
checks it, the prompt cache reads it), so a later fact cannot be written there. The first request carries the
whole list in its user message; a later request whose facts differ carries only the changed lines, in a text
block of its own after the message's tool results (as Anthropic's docs advise), and it stays there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..base.harness_texts import CONTEXT_HEADING, UPDATE_HEADING
from ..permissions.modes import EXIT_PLAN_TOOL, Mode, mode_line


@dataclass(frozen=True, kw_only=True)
class SessionFacts:
    """What the model is told about its surroundings, as they are now."""

    cwd: str
    kernel: str
    mode: Mode
    date: str
    #: The notebook as the model should name it (None: none attached), and what can be done with it there.
    notebook: str | None = None
    notebook_note: str = ""
    #: The tool names the model has (to say whether ExitPlanMode is there in plan mode).
    tool_names: Sequence[str] = ()
    #: Whether the permission mode is told (not to a sub-agent whose tools only read: no call of it asks).
    mode_told: bool = True
    #: Tools that came or went, for models that are told in text (no mid-conversation tool changes).
    tools_added: Sequence[str] = ()
    tools_removed: Sequence[str] = ()

    def lines(self) -> dict[str, str]:
        """The facts by label, in the order they are told."""
        notebook = self.notebook or "none attached (work with files)"
        if self.notebook_note:
            notebook = f"{notebook} — {self.notebook_note}"
        lines = {
            "Notebook": notebook,
            "Working directory": f"{self.cwd} (relative paths start here)",
            "Kernel": f"{self.kernel}; its variables are live, so inspect them rather than guess",
        }
        if self.mode_told:
            lines["Permission mode"] = mode_line(self.mode, exit_plan=EXIT_PLAN_TOOL in self.tool_names)
        lines["Date"] = self.date
        if self.tools_added:
            lines["Tools now available"] = ", ".join(self.tools_added)
        if self.tools_removed:
            lines["Tools no longer available"] = (
                f"{', '.join(self.tools_removed)} (a call to one is refused with the reason)"
            )
        return lines


#: Lines said once, not kept as facts to compare (a tool change is told when it happens).
_EVENTS = ("Tools now available", "Tools no longer available")


def facts_text(told: Mapping[str, str], now: Mapping[str, str]) -> str | None:
    """The text to append: every line when nothing was told yet, else the lines that changed; None if none did."""
    changed = [(label, value) for label, value in now.items() if told.get(label) != value or label in _EVENTS]
    if not changed:
        return None
    heading = CONTEXT_HEADING if not told else UPDATE_HEADING
    return "\n".join([heading, *(f"- {label}: {value}" for label, value in changed)])


def remembered(now: Mapping[str, str]) -> dict[str, str]:
    """The facts to keep as told (events are not compared later)."""
    return {label: value for label, value in now.items() if label not in _EVENTS}
