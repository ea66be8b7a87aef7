"""`SmallModel`: a one-shot question to the session's small, fast model, for a tool's side work (WebFetch answers
its `prompt` from the page with it, so the main model reads the extract, not the page).

The agent layer implements it (`agent/small_model.py`) for each run, through the run's client and endpoint, its
usage priced into the run's cost; this layer only names the shape, so a tool can ask without knowing the agent.
"""

from __future__ import annotations

from typing import Protocol


class SmallModel(Protocol):
    """Answers one request with no conversation and no tools; raises `ToolError` when it cannot."""

    async def answer(self, *, system: str, content: str, max_tokens: int) -> str: ...
