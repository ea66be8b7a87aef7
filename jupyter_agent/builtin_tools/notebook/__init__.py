"""Notebook tools: NotebookRead, NotebookEdit and RunCell, addressed by cell id, live when the notebook is open."""

from __future__ import annotations

from ...tools.core import AnyTool
from .edit import NotebookEdit, NotebookEditInput
from .read import NotebookRead, NotebookReadInput
from .run import RunCell, RunCellInput


def notebook_tools() -> list[AnyTool]:
    """The notebook tools, for a ToolPool source; they find notebooks through the `notebooks` service."""
    return [NotebookRead(), NotebookEdit(), RunCell()]


__all__ = [
    "NotebookEdit",
    "NotebookEditInput",
    "NotebookRead",
    "NotebookReadInput",
    "RunCell",
    "RunCellInput",
    "notebook_tools",
]
