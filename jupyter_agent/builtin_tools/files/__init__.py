"""The built-in file and search tools — Read, Write, Edit, MultiEdit, Glob, Grep — with Claude Code's names and inputs."""

from __future__ import annotations

from ...tools.core import AnyTool
from .diff import Diff, unified_diff
from .edit import EditInput, EditTool
from .glob import GlobInput, GlobTool
from .grep import GrepInput, GrepTool
from .multiedit import MultiEditInput, MultiEditTool
from .read import ReadInput, ReadTool
from .ripgrep import RgLocator, find_rg
from .write import WriteInput, WriteTool


def file_tools(*, locate_rg: RgLocator = find_rg) -> list[AnyTool]:
    """Fresh instances of the file tools; `locate_rg` decides which ripgrep Grep and Glob run (None: fallback)."""
    return [
        ReadTool(),
        WriteTool(),
        EditTool(),
        MultiEditTool(),
        GlobTool(locate_rg=locate_rg),
        GrepTool(locate_rg=locate_rg),
    ]


__all__ = [
    "Diff",
    "EditInput",
    "EditTool",
    "GlobInput",
    "GlobTool",
    "GrepInput",
    "GrepTool",
    "MultiEditInput",
    "MultiEditTool",
    "ReadInput",
    "ReadTool",
    "RgLocator",
    "WriteInput",
    "WriteTool",
    "file_tools",
    "find_rg",
    "unified_diff",
]
