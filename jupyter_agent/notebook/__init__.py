"""Notebooks: one interface, two backends (live and file), and how cells are shown to the model."""

from .base import Notebook
from .bridge import COMM_TARGET, PROTOCOL_VERSION, LiveBridge
from .cells import Cell, CellType
from .file_backend import FileNotebook
from .live_backend import LiveNotebook
from .ops import (
    Delete,
    GetCells,
    Insert,
    NotebookError,
    Op,
    OpResult,
    Replace,
    Restore,
    SetOutputs,
    SetType,
)
from .provider import NotebookProvider, kernel_notebook_path

__all__ = [
    "COMM_TARGET",
    "PROTOCOL_VERSION",
    "Cell",
    "CellType",
    "Delete",
    "FileNotebook",
    "GetCells",
    "Insert",
    "LiveBridge",
    "LiveNotebook",
    "Notebook",
    "NotebookError",
    "NotebookProvider",
    "Op",
    "OpResult",
    "Replace",
    "Restore",
    "SetOutputs",
    "SetType",
    "kernel_notebook_path",
]
