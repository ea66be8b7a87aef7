"""The session's notebook fact: the notebook as the model should name it, and what can be done with it there.

The frontend is found at the start of each run (the page's hello, VS Code's traces, a headless client). The fact
is told in the conversation's first message and, when the frontend changes later (a page opened, the kernel now
driven from VS Code), as an update appended to the run's message (`facts.py`), never in the system prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .prompt import notebook_facts

if TYPE_CHECKING:
    from ..notebook.frontend import KernelSignals
    from ..notebook.provider import NotebookProvider

NotebookFacts = tuple[str | None, str]


class NotebookLine:
    def __init__(self, notebook_path: str | None) -> None:
        self._facts: NotebookFacts = (notebook_path, "")
        self._notebooks: NotebookProvider | None = None

    @property
    def facts(self) -> NotebookFacts:
        """The notebook and what can be done with it there, as known now: a page's greeting that comes in during
        a run (no run waits for it) changes them, and the next request tells the update."""
        if self._notebooks is not None:
            self._facts = notebook_facts(self._notebooks.known())
        return self._facts

    def reset(self) -> None:
        """A new conversation: nothing to forget (the facts are told from scratch by the conversation)."""

    async def update(
        self, notebooks: NotebookProvider, signals: KernelSignals | None, cell_id: str | None
    ) -> str | None:
        """Find the frontend for this run; the running `%%agent` cell's id as the frontend tells it (VS Code's
        is found in the saved notebook by its source), else `cell_id` as the host read it."""
        if signals is None:
            return cell_id
        frontend = await notebooks.refresh(signals)
        self._facts, self._notebooks = notebook_facts(frontend), notebooks
        return await notebooks.running_cell()
