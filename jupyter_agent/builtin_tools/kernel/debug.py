"""Debug: a post-mortem look at the last exception — one frame's source and locals, nothing evaluated.

Locals are shown with the same time-capped facts and bounded reprs as Inspect, because a `__repr__` is the
user's code and may hang. For a cell's own frame (module level) only the names the failing code uses are
shown, not the whole namespace. Evaluating an expression in a frame is RunCode's job, and asks like RunCode.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ...base.errors import ToolError
from ...base.result import ToolResult
from ...masking import cap_text, clip
from ...tools.context import ToolContext
from ...tools.core import Tool, ToolAnnotations, ToolInput
from .capped import Deadline
from .describe import describe_variable
from .guards import CREDENTIAL_HIDDEN, INTERNAL_PACKAGES, is_internal, names_credential
from .portraits import safe_repr
from .tracebacks import FrameInfo, headline, last_exception_and_origin, syntax_location, user_frames

_MAX_CHARS = 12_000
_MAX_LOCALS = 40
_SOURCE_CONTEXT = 5


class DebugInput(ToolInput):
    frame: int = -1
    """Index into the last exception's traceback, outermost first: 0 is the cell, -1 (the default) the innermost frame where it was raised."""


def _locals_of(info: FrameInfo) -> dict[str, Any]:
    """A function's locals; for module-level code (a cell) only the names that code refers to."""
    frame = info.frame
    if frame.f_code.co_name != "<module>":
        return dict(frame.f_locals)
    names = set(frame.f_code.co_names) | set(frame.f_code.co_varnames)
    return {n: v for n, v in frame.f_globals.items() if n in names and not n.startswith("__")}


def _local_line(name: str, value: Any, deadline: Deadline) -> str:
    if is_internal(value):
        return f"  {name} ({type(value).__name__}) = (the kernel's or the agent's own object: not shown)"
    facts = describe_variable(name, value, deadline)
    kind = " ".join(part for part in (facts.type_name, facts.shape, facts.dtype) if part)
    if names_credential(name):
        return f"  {name} ({kind}) = {CREDENTIAL_HIDDEN}"
    shown = deadline.call(lambda: safe_repr(value))
    if shown.timed_out:
        text = f"(repr did not finish in {deadline.per_call:g} s)"
    elif shown.error is not None:
        text = f"(repr failed: {type(shown.error).__name__})"
    else:
        text = str(shown.value)
    return f"  {name} ({kind}) = {clip(text, 300)}"


class Debug(Tool[DebugInput]):
    name = "Debug"
    description = (
        "Post-mortem look at the last exception raised in the user's kernel, by a cell the user ran or by "
        "RunCode or RunCell (the result says which): the list of traceback frames, "
        "and for one frame (default: the innermost, where it was raised) its function, file:line, the "
        "source around the line and its local variables (types, shapes and bounded reprs). Nothing is "
        "evaluated; to run an expression in the kernel use RunCode."
    )
    kind = "read"
    annotations = ToolAnnotations(read_only=True, destructive=False, idempotent=True)
    Input = DebugInput

    def __init__(self, *, repr_seconds: float = 1.0, total_seconds: float = 8.0) -> None:
        self.repr_seconds = repr_seconds
        self.total_seconds = total_seconds

    def title(self, params: DebugInput, ctx: ToolContext) -> str:
        return f"Debug frame {params.frame}"

    async def run(self, params: DebugInput, ctx: ToolContext) -> ToolResult:
        found = last_exception_and_origin()
        if found is None:
            raise ToolError(
                "NOT_AVAILABLE",
                "there is no exception to debug: nothing in this kernel has raised one yet (no cell the user "
                "ran, no RunCode or RunCell); ask the user rather than re-running their cells to get one",
            )
        exc, origin = found
        frames = user_frames(exc)
        if not frames and isinstance(exc, SyntaxError):
            where = "\n".join(syntax_location(exc))
            raise ToolError(
                "NOT_AVAILABLE",
                f"the last exception ({headline(exc)}) was raised while the cell was compiled, before any of it "
                f"ran, so there are no frames or locals to look at; fix the code it points to:\n{where}",
            )
        if not frames:
            raise ToolError("NOT_AVAILABLE", f"the last exception ({headline(exc)}) has no traceback frames")
        if not -len(frames) <= params.frame < len(frames):
            raise ToolError(
                "INVALID_ARGS",
                f"frame {params.frame} is out of range: the traceback has {len(frames)} frame(s), "
                f"use 0..{len(frames) - 1} or -1..-{len(frames)}",
            )
        index = params.frame % len(frames)
        return await asyncio.to_thread(self._describe, exc, origin, frames, index)

    def _describe(self, exc: BaseException, origin: str, frames: list[FrameInfo], index: int) -> ToolResult:
        chosen = frames[index]
        lines = [f"{headline(exc)}  (raised by {origin})", "", "frames (0 = outermost):"]
        for number, info in enumerate(frames):
            mark = "→" if number == index else " "
            lines.append(f"{mark} {number}: {info.function} at {info.where}")
        lines += ["", f"frame {index}: {chosen.function} at {chosen.where}", chosen.source(_SOURCE_CONTEXT)]
        module = str(chosen.frame.f_globals.get("__name__", ""))
        internal = (
            module.split(".", 1)[0] in INTERNAL_PACKAGES
        )  # the agent's or IPython's own code: not shown
        local_values = {} if internal else _locals_of(chosen)
        deadline = Deadline(per_call=self.repr_seconds, total=self.total_seconds)
        lines.append("")
        lines.append(f"locals ({len(local_values)}):" if local_values else "locals: none")
        for name, value in sorted(local_values.items())[:_MAX_LOCALS]:
            lines.append(_local_line(name, value, deadline))
        if len(local_values) > _MAX_LOCALS:
            lines.append(f"  … {len(local_values) - _MAX_LOCALS} more")
        return ToolResult.ok(
            cap_text("\n".join(lines), _MAX_CHARS),
            summary=f"{type(exc).__name__} · frame {index} {chosen.function}",
        )
