"""Inspect: a careful look at one variable (or an attribute / item of it) in the user's namespace.

The path is parsed, never evaluated: names, attributes and constant subscripts only (`df.columns`,
`data['key']`, `model.layers[0]`), so nothing is called, and no `__dunder__` is followed (from any function,
`__globals__` reaches every module global, the environment and the API key). Looking things up can still run user code
(a property, `__getitem__`), so that runs under the same time cap as the reprs.

The walk stops at the kernel's and the agent's own objects (`guards.py`): IPython's shell and its kernel,
session and magics, this package's objects, the model client. A path that names a credential (an environment
variable the registry calls a secret, an attribute such as `api_key`), or a variable whose value holds a
secret, asks first even in plan mode (`sensitive`).
"""

from __future__ import annotations

import ast
import asyncio
import difflib
from typing import Any

from ...base.errors import ToolError
from ...base.result import ToolResult
from ...masking import cap_text, clip
from ...tools.context import ToolContext
from ...tools.core import READ_ONLY, Tool, ToolInput
from .capped import Deadline
from .guards import credential_reason, refuse_internal
from .portraits import portray, type_path
from .variables import user_namespace

_MAX_CHARS = 12_000


class InspectInput(ToolInput):
    name: str
    """A variable in the user's namespace, optionally with attributes and constant subscripts: `df`, `df.columns`, `config['paths']`, `model.layers[0]`. Nothing is called."""


def _step_constant(node: ast.expr) -> Any:
    """A subscript may only hold constants (`x['a']`, `x[0]`, `x[-1]`, `x[1:3]`)."""
    if isinstance(node, ast.Slice):
        parts = (node.lower, node.upper, node.step)
        return slice(*(None if part is None else _step_constant(part) for part in parts))
    if isinstance(node, ast.Tuple):
        return tuple(_step_constant(elt) for elt in node.elts)
    return ast.literal_eval(node)


def parse_path(text: str) -> tuple[str, list[tuple[str, Any]]]:
    """`df.columns[0]` → ('df', [('attr', 'columns'), ('item', 0)]); anything else is refused."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        node = None
    steps: list[tuple[str, Any]] = []
    while node is not None and not isinstance(node, ast.Name):
        if isinstance(node, ast.Attribute):
            steps.append(("attr", node.attr))
            node = node.value
        elif isinstance(node, ast.Subscript):
            try:
                steps.append(("item", _step_constant(node.slice)))
            except (ValueError, TypeError, SyntaxError):
                node = None
                break
            node = node.value
        else:
            node = None
    if node is None:
        raise ToolError(
            "INVALID_ARGS",
            f"Inspect cannot look up {text!r}: use a variable name with attributes and constant subscripts, "
            "e.g. df, df.columns, data['key'], items[0]; calls and expressions are not evaluated "
            "(use RunCode for that)",
        )
    steps.reverse()
    _refuse_dunders(text, node.id, steps)
    return node.id, steps


def _refuse_dunders(text: str, root: str, steps: list[tuple[str, Any]]) -> None:
    """`__globals__`, `__func__`, `__dict__`, `__class__`, `__builtins__`, `__subclasses__`… lead from any object
    to module globals and from there to anything in the process (the environment, the API key): looking
    through them is running code, which asks first."""
    hops = [root] + [step for kind, step in steps if kind == "attr"]
    hop = next((name for name in hops if name.startswith("__")), None)
    if hop is not None:
        raise ToolError(
            "INVALID_ARGS",
            f"Inspect does not follow {hop!r} in {text!r}: special (dunder) attributes reach module globals and "
            "interpreter internals, which Inspect does not open without asking. Inspect the object itself "
            f"(e.g. {'a variable' if root.startswith('__') else root}), or use RunCode, which asks the user first",
        )


def _label(root: str, steps: list[tuple[str, Any]]) -> str:
    return root + "".join(f".{v}" if kind == "attr" else f"[{v!r}]" for kind, v in steps)


def _follow(value: Any, root: str, steps: list[tuple[str, Any]]) -> Any:
    for index, (kind, step) in enumerate(steps):
        where = _label(root, steps[:index])
        refuse_internal(value, where)
        if kind == "attr":
            try:
                value = getattr(value, step)
            except AttributeError:
                near = difflib.get_close_matches(step, [n for n in dir(value) if not n.startswith("__")], n=3)
                hint = f"; did you mean {', '.join(near)}?" if near else ""
                raise ToolError(
                    "INVALID_ARGS", f"'{where}' ({type(value).__name__}) has no attribute '{step}'{hint}"
                ) from None
        else:
            try:
                value = value[step]
            except (KeyError, IndexError, TypeError) as exc:
                raise ToolError(
                    "INVALID_ARGS", clip(f"'{where}'[{step!r}] failed: {type(exc).__name__}: {exc}", 300)
                ) from None
    refuse_internal(value, _label(root, steps))
    return value


class Inspect(Tool[InspectInput]):
    name = "Inspect"
    description = (
        "Look at one variable of the user's live kernel in detail, without running code: for a DataFrame "
        "its shape, dtypes, memory and first rows; for an array its shape, dtype and min/max/mean; for a "
        "function or class its signature and docstring; otherwise a length-capped repr. Attributes and "
        "constant subscripts are allowed (df.columns, data['key']). Reprs that take longer than a few "
        "seconds are abandoned and reported as such."
    )
    kind = "read"
    annotations = READ_ONLY
    Input = InspectInput

    def __init__(self, *, repr_seconds: float = 2.0, total_seconds: float = 8.0) -> None:
        self.repr_seconds = repr_seconds
        self.total_seconds = total_seconds

    def title(self, params: InspectInput, ctx: ToolContext) -> str:
        return f"Inspect {params.name}"

    def sensitive(self, params: InspectInput, ctx: ToolContext) -> str | None:
        try:
            root, steps = parse_path(params.name)
        except ToolError:
            return None  # refused when it runs
        namespace = ctx.namespace or {}
        if root not in namespace:
            return None
        found = Deadline(per_call=self.repr_seconds, total=self.repr_seconds).call(
            lambda: _follow(namespace[root], root, steps)
        )  # what the path leads to: a credential under an innocent name asks too
        return credential_reason(root, steps, found.value if found.ok else None)

    async def run(self, params: InspectInput, ctx: ToolContext) -> ToolResult:
        namespace = user_namespace(ctx, self.name)
        root, steps = parse_path(params.name)
        if root not in namespace:
            near = difflib.get_close_matches(root, [n for n in namespace if not n.startswith("_")], n=3)
            hint = f"; similar names: {', '.join(near)}" if near else ""
            raise ToolError(
                "INVALID_ARGS",
                f"there is no variable '{root}' in the kernel{hint} (ListVariables lists them)",
            )
        return await asyncio.to_thread(self._inspect, namespace[root], root, steps)

    def _inspect(self, value: Any, root: str, steps: list[tuple[str, Any]]) -> ToolResult:
        deadline = Deadline(per_call=self.repr_seconds, total=self.total_seconds)
        label = _label(root, steps)
        if steps:
            found = deadline.call(lambda: _follow(value, root, steps))
            if found.timed_out:
                raise ToolError("TIMEOUT", f"looking up '{label}' did not finish in {self.repr_seconds:g} s")
            if isinstance(found.error, ToolError):
                raise found.error
            if found.error is not None:
                raise ToolError(
                    "EXECUTION_ERROR",
                    f"looking up '{label}' raised {type(found.error).__name__}: {found.error}",
                )
            value = found.value
        else:
            refuse_internal(value, label)
        text = f"{label}: {type_path(value)}\n{portray(value, deadline)}"
        return ToolResult.ok(cap_text(text, _MAX_CHARS), summary=f"{label}: {type(value).__name__}")
