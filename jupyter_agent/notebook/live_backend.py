"""The live backend: the notebook open in JupyterLab, changed through its shared model by the labextension.

Edits show at once, the user can undo them with Ctrl+Z, and the file on disk is left to the user's save:
the agent never writes the file of a notebook that is open. Each `apply` is one request, one round trip.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from .base import Notebook
from .bridge import LiveBridge
from .ops import Op, OpResult, op_to_wire

_QUOTED_ID = re.compile(r"id '([^']*)'")


class LiveNotebook(Notebook):
    live = True

    def __init__(self, path: Path, bridge: LiveBridge) -> None:
        super().__init__(path)
        self.bridge = bridge

    async def apply(self, ops: Sequence[Op]) -> list[OpResult]:
        if not ops:
            return []
        replies = await self.bridge.request([op_to_wire(op) for op in ops])
        return [self._worded(OpResult.from_wire(reply)) for reply in replies]

    def _worded(self, result: OpResult) -> OpResult:
        """The page words CELL_NOT_FOUND for people; the model gets the same text as from the file backend."""
        if result.error != "CELL_NOT_FOUND":
            return result
        found = _QUOTED_ID.search(result.message)
        if found is None:
            return result
        return OpResult.failed("CELL_NOT_FOUND", self.not_found(found.group(1)).message)
