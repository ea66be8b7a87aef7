"""The system prompt: where the model is (notebook, directory, kernel, mode, tools) and how the user sees it. Short.

It stays identical across the turns of a session unless the mode or the tools change, so it is read from
the prompt cache; nothing volatile (time, counters) goes in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..notebook.frontend import Frontend
from ..tools.modes import MODE_PROMPT, Mode
from ..tools.workflow.plan import ExitPlanMode
from .memory import MemoryFile, memory_section

_SUBAGENT_OPENING = (
    "You are a sub-agent of a coding agent running inside a Jupyter kernel. The main agent gave you one task "
    "(the user message). Work on it with your tools, then end with a complete, self-contained report: your "
    "final message is all the main agent sees of your work. You cannot ask the user anything."
)


@dataclass(frozen=True, kw_only=True)
class PromptFacts:
    """What the system prompt states about the model's surroundings."""

    cwd: str
    kernel: str
    mode: Mode
    tool_names: Sequence[str]
    notebook_path: str | None = None
    #: What can be done with the notebook where it is open (`notebook_facts`); empty: nothing to add.
    notebook_note: str = ""
    extra_instructions: str = ""
    #: Set for a sub-agent started by the Task tool: it works for the main agent, not the user.
    subagent: bool = False
    #: A project's sub-agent's own system prompt (the body of its `.claude/agents/*.md`), said first.
    role: str = ""
    #: AGENTS.md / CLAUDE.md files, read once per session (memory.py).
    memory: Sequence[MemoryFile] = ()


def system_prompt(facts: PromptFacts) -> str:
    notebook = facts.notebook_path or "none attached (work with files)"
    if facts.notebook_note:
        notebook = f"{notebook} — {facts.notebook_note}"
    tools = ", ".join(facts.tool_names) if facts.tool_names else "none"
    mode_line = MODE_PROMPT[facts.mode]
    if facts.mode == "plan" and ExitPlanMode.name in facts.tool_names:
        mode_line = (
            "plan: only read-only tools run. Investigate, then present your plan with ExitPlanMode; the user "
            "approves it (the mode switches) or asks you to keep planning. Do not attempt edits."
        )
    opening = (
        _SUBAGENT_OPENING
        if facts.subagent
        else "You are a coding agent running inside a Jupyter kernel, working with the user on their notebook "
        "and project files."
    )
    if facts.role.strip():
        opening = f"{facts.role.strip()}\n\n{opening}"
    lines = [
        opening,
        "",
        f"- Notebook: {notebook}",
        f"- Working directory: {facts.cwd} (relative paths start here)",
        f"- Kernel: {facts.kernel}; its variables are live, so inspect them rather than guess",
        f"- Permission mode: {mode_line}",
        f"- Tools: {tools}",
        "",
        "The user sees each tool call as a card in the cell's output and each edit as a diff, and approves "
        "calls that change files, cells or run code. If a call is denied, do not retry it: adjust or ask.",
        "Read a file or cell before editing it; an edit of something changed since your read is refused "
        "(STALE_READ), so read it again. Cells are addressed by id.",
        "Answer in short Markdown and say what you changed.",
        *memory_section(facts.memory),
    ]
    if facts.extra_instructions.strip():
        lines += ["", "The user's instructions:", facts.extra_instructions.strip()]
    return "\n".join(lines)


_PROPOSALS = "NotebookEdit cannot change it: each change is shown to the user as a proposal to apply"


def notebook_facts(frontend: Frontend) -> tuple[str | None, str]:
    """The prompt's notebook line for this frontend: the notebook as the model should name it, and what can be
    done with it there (decided by `notebook.access`; said here so the model plans for it)."""
    shown = str(frontend.notebook) if frontend.notebook is not None else None
    kind = frontend.kind
    if kind == "none":
        return shown, ""
    if frontend.live_blocked is not None:
        return shown, (
            f"open in JupyterLab, but its page cannot be reached during a run ({frontend.live_blocked}): "
            f"NotebookRead reads the saved file, and {_PROPOSALS}"
        )
    if kind == "jupyterlab":
        return shown, (
            "open in JupyterLab with the jupyter-agent extension: NotebookRead reads the live page, NotebookEdit "
            "changes it live (the user can undo) and RunCell writes outputs into it; the user saves the file"
        )
    if kind == "gateway":
        return frontend.page_path or shown, (
            "live in a JupyterLab page; this kernel runs on another machine (through a gateway), so the "
            "notebook's file is not on this kernel's disk: use the notebook tools for it, never Read or Write, "
            "and relative paths are this kernel's own directory"
        )
    if kind == "vscode" and not frontend.on_disk:
        return frontend.name or shown, (
            "open in VS Code on another machine (this kernel runs on a remote Jupyter server): its cells cannot "
            "be read or changed from here; ask the user to paste what you need"
        )
    if kind == "vscode":
        return shown, (
            "open in VS Code: NotebookRead reads its saved file (edits not yet saved in the editor are not "
            f"visible), {_PROPOSALS}, and RunCell runs a cell's saved source and shows the outputs in this cell"
        )
    if kind == "headless":
        return shown, (
            "run by a headless client (nbclient, papermill, nbconvert or voila): no one can answer or approve "
            "anything during the run, and changes to this notebook are shown as proposals in its output, not "
            "applied"
        )
    return shown, (
        "open in a frontend without the jupyter-agent extension (or a closed page): NotebookRead reads its saved "
        f"file, and {_PROPOSALS}"
    )
