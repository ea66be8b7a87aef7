"""The permission modes, declared once: the names, and every text that says what a mode does.

One table (`MODE_TEXTS`) holds, per mode, the line for the person and the sentences for the model; the settings'
choices, the `--mode` flag, `%agent help`, the system prompt (`mode_line(mode, exit_plan=None)`), the session
context and its updates (`mode_line(mode, exit_plan=...)`), the policy's refusal (`mode_refusal`) and the
result of an approved plan (`MODE_TEXTS[mode].runs`) are all made from it, so no two of them can disagree. A mode
added to `Mode` without its texts is a type error (the table is keyed by the Literal).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Mode = Literal["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"]
MODES: tuple[Mode, ...] = get_args(Mode)

#: The tool that presents a plan for approval in plan mode (`builtin_tools/workflow/plan.py`).
EXIT_PLAN_TOOL = "ExitPlanMode"
#: The tool with which the model asks the user to switch to plan mode (`builtin_tools/workflow/plan.py`).
ENTER_PLAN_TOOL = "EnterPlanMode"


@dataclass(frozen=True, kw_only=True)
class ModeText:
    """What is said about one mode."""

    #: For the person (settings help, `%agent help`).
    help: str
    #: For the model: what runs in this mode, what asks and what is refused.
    runs: str
    #: For the model, in a mode that ends with a plan: how to present it with ExitPlanMode, and without it.
    present: str = ""
    present_without_tool: str = ""
    #: For the model, in a mode it may ask to enter (EnterPlanMode's description): when to ask for it.
    enter: str = ""


MODE_TEXTS: dict[Mode, ModeText] = {
    "default": ModeText(
        help="read-only tools run; anything else asks",
        runs="read-only tools run at once; any other call (an edit, RunCode, RunCell, Bash) asks the user first",
    ),
    "acceptEdits": ModeText(
        help="file and notebook edits run without asking; running code asks",
        runs="edits of files and cells run without asking; running code (RunCode, RunCell, Bash) asks the user first",
    ),
    "plan": ModeText(
        help="only read-only tools run; the agent investigates and proposes a plan",
        runs="only read-only tools run; RunCode, RunCell, Bash and every edit of a file or cell are refused",
        present=(
            f"present the plan with {EXIT_PLAN_TOOL}: the user approves it (the mode switches and you carry the "
            "plan out at once) or asks you to keep planning"
        ),
        present_without_tool="give the plan as your answer: the user switches the mode to carry it out",
        enter=(
            f"Ask the user to switch to plan mode before a change that needs a plan first: several files or "
            f"cells, an approach that is not clear, or a request to plan. The user approves or declines; in plan "
            f"mode you investigate with read-only tools and present the plan with {EXIT_PLAN_TOOL}. Not for "
            "small, clear changes, research or questions."
        ),
    ),
    "dontAsk": ModeText(
        help="nothing asks: what the allow rules or read-only access do not allow is refused",
        runs="read-only tools run; nothing asks the user: any other call (an edit, RunCode, RunCell, Bash) runs only "
        "if an allow rule allows it and is refused otherwise",
    ),
    "bypassPermissions": ModeText(
        help="nothing asks but ask rules; deny rules still refuse",
        runs="nothing asks for approval (ask rules still ask, deny rules still refuse), so weigh anything "
        "destructive yourself",
    ),
}

#: What the person reads (settings help, `%agent help`).
MODE_HELP: dict[Mode, str] = {mode: text.help for mode, text in MODE_TEXTS.items()}


def mode_line(mode: Mode, *, exit_plan: bool | None) -> str:
    """The model's line for `mode`: `plan: only read-only tools run; … .` `exit_plan` says whether the model has
    ExitPlanMode; None (the system prompt and the refusal, written without the tool list) says both ways."""
    return f"{mode}: {MODE_TEXTS[mode].runs}.{_then(mode, exit_plan)}"


def mode_refusal(tool: str, mode: Mode) -> str:
    """The policy's refusal of a call the mode does not allow (only plan refuses by mode)."""
    return f"{tool} is not available in {mode} mode: {MODE_TEXTS[mode].runs}.{_then(mode, None)}"


def _then(mode: Mode, exit_plan: bool | None) -> str:
    """What to do in a mode that ends with a plan ('' in the others)."""
    text = MODE_TEXTS[mode]
    if not text.present:
        return ""
    if exit_plan is None:
        return f" Investigate, then {text.present}. Without {EXIT_PLAN_TOOL}, {text.present_without_tool}."
    return f" Investigate, then {text.present if exit_plan else text.present_without_tool}."


def modes_help() -> str:
    """`default (read-only tools run; …) | acceptEdits (…) | …` for help texts."""
    return "; ".join(f"{mode}: {MODE_HELP[mode]}" for mode in MODES)
