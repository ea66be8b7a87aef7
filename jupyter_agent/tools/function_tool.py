"""`@tool`: a typed Python function (sync or async) becomes a Tool — the signature is the schema."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import Callable
from typing import Any, Generic, ParamSpec, TypeVar, cast, get_type_hints, overload

import docstring_parser
from pydantic import BaseModel, Field, create_model

from ..base.result import ToolResult
from .context import ToolContext
from .core import InstanceTool, ToolAnnotations, ToolInput, ToolKind
from .registration import announce

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

P = ParamSpec("P")
R = TypeVar("R")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """The description (the text before any section) and each parameter's doc.

    `docstring_parser` (what the anthropic SDK's own tool helper uses) reads Google (`Args:`), reST
    (`:param x:`) and NumPy (`Parameters` + dashes) styles; a parameter's wrapped lines are joined.
    """
    parsed = docstring_parser.parse(doc or "")
    description = "\n\n".join(part for part in (parsed.short_description, parsed.long_description) if part)
    params = {
        param.arg_name: " ".join(line.strip() for line in (param.description or "").splitlines()).strip()
        for param in parsed.params
    }
    return description, params


def _is_context(name: str, annotation: Any) -> bool:
    return annotation is ToolContext or (
        name in ("ctx", "context") and annotation in (inspect.Parameter.empty, Any)
    )


class FunctionTool(InstanceTool[BaseModel], Generic[P, R]):
    """A tool made from a function; instances, not subclasses, since each wraps its own function.

    Calling it calls the function with the function's own signature (`FunctionTool[P, R]`), so a type
    checker still checks the calls a notebook makes to a decorated function.
    """

    def __init__(
        self,
        func: Callable[P, R],
        *,
        name: str,
        description: str,
        input_model: type[BaseModel],
        kind: ToolKind,
        annotations: ToolAnnotations,
        context_param: str | None,
    ) -> None:
        super().__init__(
            name=name, description=description, input_model=input_model, kind=kind, annotations=annotations
        )
        self.func = func
        #: The same function, called with the validated input as keywords.
        self._call_with: Callable[..., Any] = func
        self.context_param = context_param

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """The decorated function still works as a function."""
        return self.func(*args, **kwargs)

    async def run(self, params: BaseModel, ctx: ToolContext) -> ToolResult:
        """Call the function (a sync one in a thread, so the worker's loop keeps going)."""
        kwargs = {name: getattr(params, name) for name in type(params).model_fields}
        if self.context_param:
            kwargs[self.context_param] = ctx
        if inspect.iscoroutinefunction(self.func):
            value = await self._call_with(**kwargs)
        else:
            value = await asyncio.to_thread(self._call_with, **kwargs)
        return as_result(value)


def as_result(value: Any) -> ToolResult:
    """What a `@tool` function returned, as a result: a ToolResult as is, text as is, anything else as JSON."""
    if isinstance(value, ToolResult):
        return value
    if value is None:
        return ToolResult.ok("(done, no output)")
    if isinstance(value, str):
        return ToolResult.ok(value)
    try:
        return ToolResult.ok(json.dumps(value, indent=2, default=str, ensure_ascii=False))
    except (TypeError, ValueError):
        return ToolResult.ok(repr(value))


def function_tool(
    func: Callable[P, R],
    *,
    name: str | None = None,
    description: str | None = None,
    kind: ToolKind | None = None,
    read_only: bool = False,
    destructive: bool | None = None,
    idempotent: bool = False,
    open_world: bool = False,
) -> FunctionTool[P, R]:
    """`func` as a tool: its signature is the input schema, its docstring the description (see `tool`)."""
    tool_name = name or func.__name__
    if not _NAME.match(tool_name):
        raise ValueError(f"tool name {tool_name!r} must match [A-Za-z0-9_-]{{1,64}}")
    doc_description, param_docs = parse_docstring(func.__doc__)
    hints = get_type_hints(func, include_extras=True)
    fields: dict[str, Any] = {}
    context_param: str | None = None
    for param in inspect.signature(func).parameters.values():
        annotation = hints.get(param.name, param.annotation)
        if _is_context(param.name, annotation):
            context_param = param.name
            continue
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise TypeError(
                f"@tool {tool_name}: *args/**kwargs cannot be described to the model; name each parameter"
            )
        if annotation is inspect.Parameter.empty:
            raise TypeError(f"@tool {tool_name}: parameter '{param.name}' needs a type annotation")
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (annotation, Field(default, description=param_docs.get(param.name)))
    model = cast(
        type[BaseModel],
        create_model(f"{tool_name}Input", __base__=ToolInput, **fields),  # pyright: ignore[reportCallIssue, reportArgumentType]
    )
    text = description or doc_description or f"Calls the Python function {func.__name__}."
    chosen_kind: ToolKind = kind or ("read" if read_only else "other")
    annotations = ToolAnnotations(
        read_only=read_only,
        destructive=(not read_only) if destructive is None else destructive,
        idempotent=idempotent,
        open_world=open_world,
    )
    return FunctionTool(
        func,
        name=tool_name,
        description=text,
        input_model=model,
        kind=chosen_kind,
        annotations=annotations,
        context_param=context_param,
    )


@overload
def tool(func: Callable[P, R], /) -> FunctionTool[P, R]: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    kind: ToolKind | None = None,
    read_only: bool = False,
    destructive: bool | None = None,
    idempotent: bool = False,
    open_world: bool = False,
) -> Callable[[Callable[P, R]], FunctionTool[P, R]]: ...
def tool(
    func: Callable[P, R] | None = None,
    /,
    **options: Any,
) -> FunctionTool[P, R] | Callable[[Callable[P, R]], FunctionTool[P, R]]:
    """Make a Tool from a typed function: `@tool` or `@tool(read_only=True, name="lookup")`.

    The docstring's first part is the description; its parameter section (Google, reST or NumPy style)
    describes the fields. A parameter named `ctx` (or typed `ToolContext`) receives the tool context.
    In a notebook, the decorated function is registered with this kernel's agent (re-running replaces it).
    """

    def wrap(f: Callable[P, R]) -> FunctionTool[P, R]:
        made = function_tool(f, **options)
        announce(made)
        return made

    return wrap(func) if func is not None else wrap
