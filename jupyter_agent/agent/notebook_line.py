"""The system prompt's notebook line, fixed for a conversation; a frontend learned later is told in the request.

The frontend is found at the start of each run (the page's hello, VS Code's traces, a headless client). The
system prompt must stay byte-identical across a conversation for the prompt cache, so the line is fixed
when the conversation begins; when the frontend changes later (a page opened, the kernel now driven from
VS Code), the run's user message carries the new line once instead.
"""

from __future__ import annotations

from ..tools.context import ToolContext
from .conversation import Block
from .prompt import notebook_facts

NotebookFacts = tuple[str | None, str]


class NotebookLine:
    def __init__(self, notebook_path: str | None) -> None:
        self._default: NotebookFacts = (notebook_path, "")
        self._fixed: NotebookFacts | None = None
        self._told: NotebookFacts | None = None

    @property
    def facts(self) -> NotebookFacts:
        """What the system prompt says: the notebook and what can be done with it there."""
        return self._fixed or self._default

    def reset(self) -> None:
        """A new conversation: the next run fixes the line again."""
        self._fixed = None

    async def update(self, ctx: ToolContext, *, new_conversation: bool) -> list[Block]:
        """Find the frontend for this run; the blocks to send with the request when it changed since the
        line was fixed (once per change)."""
        notebooks, signals = ctx.services.notebooks, ctx.services.signals
        if notebooks is None or signals is None:
            return []
        frontend = await notebooks.refresh(signals)
        ctx.services.running_cell_id = await notebooks.running_cell()
        now = notebook_facts(frontend)
        if self._fixed is None or new_conversation:
            self._fixed = self._told = now
            return []
        if now == self._told:
            return []
        self._told = now
        shown, note = now
        line = f"{shown or 'none attached'}{f' — {note}' if note else ''}"
        return [
            {
                "type": "text",
                "text": f"[Where the notebook is open changed since this conversation began. Notebook: {line}]",
            }
        ]
