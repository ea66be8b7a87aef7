"""The permission modes, declared once: the names, a line for the person, a line for the model.

The settings' choices, the `--mode` flag, `%agent help` and the system prompt all read these tables;
a mode added to `Mode` without its lines is a type error (the tables are keyed by the Literal).
"""

from __future__ import annotations

from typing import Literal, get_args

Mode = Literal["default", "acceptEdits", "plan", "bypassPermissions"]
MODES: tuple[Mode, ...] = get_args(Mode)

#: What the person reads (settings help, `%agent help`).
MODE_HELP: dict[Mode, str] = {
    "default": "read-only tools run; anything else asks",
    "acceptEdits": "file and notebook edits run without asking; running code asks",
    "plan": "only read-only tools run; the agent investigates and proposes a plan",
    "bypassPermissions": "nothing asks but ask rules; deny rules still refuse",
}

#: What the model reads in the system prompt.
MODE_PROMPT: dict[Mode, str] = {
    "default": "default: read-only tools run; anything else asks the user first.",
    "acceptEdits": "acceptEdits: file and notebook edits run without asking; running code asks first.",
    "plan": (
        "plan: only read-only tools run. Investigate, then present a plan as your answer; "
        "the user switches the mode to carry it out. Do not attempt edits."
    ),
    "bypassPermissions": "bypassPermissions: nothing asks for approval, so be careful with anything destructive.",
}


def modes_help() -> str:
    """`default (read-only tools run; …) | acceptEdits (…) | …` for help texts."""
    return "; ".join(f"{mode}: {MODE_HELP[mode]}" for mode in MODES)
