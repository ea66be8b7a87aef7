"""ListVariables: what the user's namespace holds — names, types, shapes, dtypes, sizes — at a glance."""

from __future__ import annotations

import asyncio
from typing import Any

from ...base.errors import ToolError
from ...base.json_values import is_object
from ...base.result import ToolResult
from ...tools.context import ToolContext
from ...tools.core import READ_ONLY, Tool, ToolInput
from .capped import Deadline
from .describe import VariableFacts, describe_variable, is_callable_kind, is_hidden

_MAX_ROWS = 300
_COLUMNS = ("name", "type", "shape/len", "dtype", "size", "value")


class ListVariablesInput(ToolInput):
    include_functions: bool = False
    """Also list functions and classes the user defined (hidden by default)."""


def user_namespace(ctx: ToolContext, tool: str) -> dict[str, Any]:
    if ctx.namespace is None:
        raise ToolError(
            "NOT_AVAILABLE",
            f"{tool} needs the kernel's user namespace, and this agent is not running inside a kernel",
        )
    return ctx.namespace


def _hidden_by_shell(ctx: ToolContext) -> dict[str, Any]:
    """IPython's own startup names (`%who` hides them too), unless the user rebound them."""
    shell = ctx.services.shell
    hidden = getattr(shell, "user_ns_hidden", None)
    return dict(hidden) if is_object(hidden) else {}


def _table(rows: list[VariableFacts]) -> str:
    cells = [(r.name, r.type_name, r.shape, r.dtype, r.size, r.value or r.note) for r in rows]
    used = [i for i in range(len(_COLUMNS)) if i < 2 or any(c[i] for c in cells)]
    widths = {i: max(len(_COLUMNS[i]), *(len(c[i]) for c in cells)) for i in used}
    lines = ["  ".join(_COLUMNS[i].ljust(widths[i]) for i in used).rstrip()]
    lines += ["  ".join(c[i].ljust(widths[i]) for i in used).rstrip() for c in cells]
    return "\n".join(lines)


class ListVariables(Tool[ListVariablesInput]):
    name = "ListVariables"
    description = (
        "List the variables in the user's live kernel namespace (what their notebook cells defined): name, "
        "type, shape or length, dtype, approximate size, and the value of short scalars. Private names, "
        "modules and IPython's own names are hidden; functions and classes only with include_functions. "
        "Use Inspect to look at one variable in detail."
    )
    kind = "read"
    annotations = READ_ONLY
    Input = ListVariablesInput

    def __init__(self, *, per_value_seconds: float = 1.0, total_seconds: float = 5.0) -> None:
        self.per_value_seconds = per_value_seconds
        self.total_seconds = total_seconds

    async def run(self, params: ListVariablesInput, ctx: ToolContext) -> ToolResult:
        namespace = user_namespace(ctx, self.name)
        hidden_by_shell = _hidden_by_shell(ctx)
        return await asyncio.to_thread(
            self._listing, dict(namespace), hidden_by_shell, params.include_functions
        )

    def _listing(
        self, namespace: dict[str, Any], shell_names: dict[str, Any], include_functions: bool
    ) -> ToolResult:
        shown: list[tuple[str, Any]] = []
        callables = 0
        for name, value in namespace.items():
            if is_hidden(name, value) or (name in shell_names and shell_names[name] is value):
                continue
            if not include_functions and is_callable_kind(value):
                callables += 1
            else:
                shown.append((name, value))
        shown.sort(key=lambda item: item[0].lower())
        deadline = Deadline(per_call=self.per_value_seconds, total=self.total_seconds)
        rows = [describe_variable(name, value, deadline) for name, value in shown[:_MAX_ROWS]]
        noun = "variable" if len(shown) == 1 else "variables"
        header = f"{len(shown)} {noun} in the kernel"
        if callables:
            header += f" ({callables} functions/classes hidden; pass include_functions=true to list them)"
        if not rows:
            return ToolResult.ok(header + ".", summary=header)
        text = header + ":\n" + _table(rows)
        if len(shown) > _MAX_ROWS:
            text += f"\n… and {len(shown) - _MAX_ROWS} more (not listed)"
        return ToolResult.ok(text, summary=header)
