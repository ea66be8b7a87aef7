"""Shared set-up for the file-tool tests: a real sandbox in tmp_path, the real Dispatcher, real files."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from jupyter_agent.base.result import ToolResult
from jupyter_agent.tools import Dispatcher, Limits, PermissionPolicy, Sandbox, ToolCall, ToolContext, ToolPool
from jupyter_agent.tools.files import RgLocator, file_tools, find_rg


class Harness:
    """Calls tools the way the agent loop does: by name, with JSON input, through the Dispatcher."""

    def __init__(
        self,
        root: Path,
        *,
        limits: Limits | None = None,
        locate_rg: RgLocator = find_rg,
        roots: tuple[Path, ...] = (),
    ) -> None:
        self.root = root
        pool = ToolPool()
        pool.set_source("builtin", file_tools(locate_rg=locate_rg))
        self.dispatcher = Dispatcher(pool=pool, policy=PermissionPolicy(mode="bypassPermissions"))
        self.ctx = ToolContext(sandbox=Sandbox.at(root, roots=roots, limits=limits))

    def call(self, name: str, tool_input: dict[str, Any] | None = None, /, **fields: Any) -> ToolResult:
        payload = {**(tool_input or {}), **fields}
        dispatched = asyncio.run(
            self.dispatcher.dispatch(ToolCall(id="toolu_1", name=name, input=payload), self.ctx)
        )
        return dispatched.result

    def ok(self, name: str, tool_input: dict[str, Any] | None = None, /, **fields: Any) -> ToolResult:
        result = self.call(name, tool_input, **fields)
        assert not result.is_error, result.content
        return result

    def read(self, path: str) -> ToolResult:
        return self.ok("Read", file_path=path)


def no_ripgrep() -> str | None:
    """Stands in for a machine without `rg` (the only way to exercise the fallback here)."""
    return None


def scrub(text: str, root: Path) -> str:
    """The text with the temporary directory written as `<root>`, so snapshots don't depend on it."""
    return text.replace(str(root), "<root>")


def png_bytes() -> bytes:
    """A valid 1×1 PNG (hand-assembled, so no imaging library is needed)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00\xff")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
