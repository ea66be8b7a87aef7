"""The live backend: the notebook open in JupyterLab, changed through its shared model by the labextension.

Edits show at once, the user can undo them with Ctrl+Z, and the file on disk is left to the user's save:
the agent never writes the file of a notebook that is open. Each `apply` is one request, one round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .base import Notebook
from .bridge import LiveBridge
from .ops import Op, OpResult, op_to_wire


class LiveNotebook(Notebook):
    live = True

    def __init__(self, path: Path, bridge: LiveBridge) -> None:
        super().__init__(path)
        self.bridge = bridge

    async def apply(self, ops: Sequence[Op]) -> list[OpResult]:
        if not ops:
            return []
        replies = await self.bridge.request([op_to_wire(op) for op in ops])
        return [OpResult.from_wire(reply) for reply in replies]
