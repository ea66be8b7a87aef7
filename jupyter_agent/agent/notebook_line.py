"""The session's notebook fact: the notebook as the model should name it, and what can be done with it there.

The frontend is found at the start of each run (the page's hello, VS Code's traces, a headless client). The fact
is told in the conversation's first message and, when the frontend changes later (a page opened, the kernel now
driven from VS Code), as an update appended to the run's message (`facts.py`), never in the system prompt.
"""

from __future__ import annotations

from ..tools.context import ToolContext
from .prompt import notebook_facts

NotebookFacts = tuple[str | None, str]


class NotebookLine:
    def __init__(self, notebook_path: str | None) -> None:
        self._facts: NotebookFacts = (notebook_path, "")

    @property
    def facts(self) -> NotebookFacts:
        """The notebook and what can be done with it there, as found at the start of the last run."""
        return self._facts

    def reset(self) -> None:
        """A new conversation: nothing to forget (the facts are told from scratch by the conversation)."""

    async def update(self, ctx: ToolContext) -> None:
        """Find the frontend for this run."""
        notebooks, signals = ctx.services.notebooks, ctx.services.signals
        if notebooks is None or signals is None:
            return
        frontend = await notebooks.refresh(signals)
        ctx.services.running_cell_id = await notebooks.running_cell()
        self._facts = notebook_facts(frontend)
