"""The system prompt: where the model is (notebook, directory, kernel, mode, tools) and how the user sees it. Short.

It stays identical across the turns of a session unless the mode or the tools change, so it is read from
the prompt cache; nothing volatile (time, counters) goes in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..tools.modes import MODE_PROMPT, Mode
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
    extra_instructions: str = ""
    #: Set for a sub-agent started by the Task tool: it works for the main agent, not the user.
    subagent: bool = False
    #: A project's sub-agent's own system prompt (the body of its `.claude/agents/*.md`), said first.
    role: str = ""
    #: AGENTS.md / CLAUDE.md files, read once per session (memory.py).
    memory: Sequence[MemoryFile] = ()


def system_prompt(facts: PromptFacts) -> str:
    notebook = facts.notebook_path or "none attached (work with files)"
    tools = ", ".join(facts.tool_names) if facts.tool_names else "none"
    mode_line = MODE_PROMPT[facts.mode]
    if facts.mode == "plan" and "ExitPlanMode" in facts.tool_names:
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
