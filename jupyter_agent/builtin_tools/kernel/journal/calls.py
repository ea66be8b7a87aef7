"""The kernel journal as RunCode and RunCell use it: a watch for a call, the approval's note before it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ....tools.context import ToolContext
from .analysis import NOTHING, CodeEffects, source_effects
from .capture import KernelWatch
from .notes import approval_note


def watch_call(ctx: ToolContext, namespace: dict[str, Any], label: str) -> KernelWatch:
    """The watch for one call in `namespace`, recording into the run's journal within the session's budget."""
    return KernelWatch(
        namespace=namespace,
        store=ctx.services.kernel_undo,
        budget=ctx.sandbox.limits.kernel_undo_bytes,
        journal=ctx.journal,
        tool=label.split(" ")[0],
        label=label,
        call_id=ctx.tool_use_id,
    )


def sources_effects(ctx: ToolContext, sources: Iterable[str]) -> CodeEffects:
    """What these sources may change, read after IPython's transform (the shell's, when there is one)."""
    shell = ctx.services.shell
    effects = NOTHING
    for source in sources:
        try:
            text = shell.transform_cell(source) if shell is not None else source
        except Exception:  # a transform error is the run's to report; here it changes nothing
            text = source
        effects = effects.merged(source_effects(text))
    return effects


def call_note(ctx: ToolContext, sources: Iterable[str]) -> str:
    """The approval's line on what the call may change in the kernel ('' outside a kernel or when nothing)."""
    if ctx.namespace is None:
        return ""
    return approval_note(sources_effects(ctx, sources), ctx.namespace, ctx.sandbox.limits.kernel_undo_bytes)
