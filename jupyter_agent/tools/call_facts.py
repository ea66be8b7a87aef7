"""A tool call as the permission policy sees it (`CallFacts`): made from the tool's declared kind and rule
field, and the call's input, apart from `permissions.py` so the policy never names a tool or a context."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..permissions.policy import CallFacts, PathAccess
from .context import ToolContext
from .core import AnyTool


def path_access(tool: AnyTool) -> PathAccess | None:
    """What a tool does to the path its rule field names, from its declared kind (not from its name)."""
    if tool.rule_kind != "path":
        return None
    if tool.read_only or tool.kind == "read":
        return "read"
    if tool.kind in ("edit", "delete"):
        return "write"
    return None


def call_facts(tool: AnyTool, params: Any, ctx: ToolContext, subject: str | None) -> CallFacts:
    """The call's permission subject, resolved once: its access, and the real path behind a path subject."""
    real: str | None = None
    absolute: Path | None = None
    real_absolute: Path | None = None
    if tool.rule_kind == "path":
        absolute = tool.rule_path(params, ctx)
        if absolute is not None:
            real_absolute = Path(os.path.realpath(absolute))
            real = ctx.sandbox.display_path(real_absolute)
    return CallFacts(
        tool=tool.name,
        subject=subject,
        rule_kind=tool.rule_kind,
        kind=tool.kind,
        read_only=tool.read_only,
        access=path_access(tool),
        real_subject=real,
        absolute=str(absolute) if absolute is not None else None,
        real_absolute=str(real_absolute) if real_absolute is not None else None,
    )
