"""`@tool`: a typed Python function (sync or async) becomes a Tool — the signature is the schema."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import Callable
from typing import Any, cast, get_type_hints, overload

from pydantic import BaseModel, Field, create_model

from ..base.result import ToolResult
from .context import ToolContext
from .core import InstanceTool, ToolAnnotations, ToolInput, ToolKind
from .registration import announce

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_GOOGLE_HEADER = re.compile(r"^(Args|Arguments|Parameters|Params)\s*:\s*$")
_ANY_HEADER = re.compile(r"^[A-Z][A-Za-z ]*:\s*$")
_GOOGLE_PARAM = re.compile(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_REST_PARAM = re.compile(r"^:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")
_NUMPY_PARAM = re.compile(r"^(\w+)\s*(?::.*)?$")
_RULE_LINE = re.compile(r"^-{3,}$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """The description (text before any section) and per-parameter docs.

    Google (`Args:`), reST (`:param x:`) and NumPy (`Parameters` + dashes) styles are understood.
    """
    lines = inspect.cleandoc(doc or "").splitlines()
    description: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None  # "params" while inside a parameter section, "other" in any other section
    current: str | None = None
    for i, line in enumerate(lines):
        stripped = line.strip()
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        rest = _REST_PARAM.match(stripped)
        if rest:
            section = "params"
            name = str(rest.group(1))
            params[name] = rest.group(2).strip()
            current = name
        elif _RULE_LINE.match(stripped):
            continue
        elif _RULE_LINE.match(nxt):  # a NumPy section title
            section, current = ("params" if stripped in ("Parameters", "Args") else "other"), None
        elif not line.startswith((" ", "\t")) and (
            _GOOGLE_HEADER.match(stripped) or _ANY_HEADER.match(stripped)
        ):
            section, current = ("params" if _GOOGLE_HEADER.match(stripped) else "other"), None
        elif section is None:
            description.append(line)
        elif section == "params" and stripped:
            indented_once = line.startswith((" ", "\t")) and len(line) - len(line.lstrip()) <= 4
            top_level = not line.startswith((" ", "\t"))
            google = _GOOGLE_PARAM.match(stripped) if indented_once else None
            numpy = _NUMPY_PARAM.match(stripped) if top_level else None
            if google:
                name = google.group(1)
                params[name] = google.group(2).strip()
                current = name
            elif numpy:
                name = numpy.group(1)
                params[name] = ""
                current = name
            elif current is not None:
                params[current] = (params[current] + " " + stripped).strip()
    return "\n".join(description).strip(), params


def _is_context(name: str, annotation: Any) -> bool:
    return annotation is ToolContext or (
        name in ("ctx", "context") and annotation in (inspect.Parameter.empty, Any)
    )


class FunctionTool(InstanceTool[BaseModel]):
    """A tool made from a function; instances, not subclasses, since each wraps its own function."""

    def __init__(
        self,
        func: Callable[..., Any],
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
        self.context_param = context_param

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The decorated function still works as a function."""
        return self.func(*args, **kwargs)

    async def run(self, params: BaseModel, ctx: ToolContext) -> ToolResult:
        """Call the function (a sync one in a thread, so the worker's loop keeps going)."""
        kwargs = {name: getattr(params, name) for name in type(params).model_fields}
        if self.context_param:
            kwargs[self.context_param] = ctx
        if inspect.iscoroutinefunction(self.func):
            value = await self.func(**kwargs)
        else:
            value = await asyncio.to_thread(self.func, **kwargs)
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
    func: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    kind: ToolKind | None = None,
    read_only: bool = False,
    destructive: bool | None = None,
    idempotent: bool = False,
    open_world: bool = False,
) -> FunctionTool:
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
def tool(func: Callable[..., Any], /) -> FunctionTool: ...
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
) -> Callable[[Callable[..., Any]], FunctionTool]: ...
def tool(
    func: Callable[..., Any] | None = None,
    /,
    **options: Any,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Make a Tool from a typed function: `@tool` or `@tool(read_only=True, name="lookup")`.

    The docstring's first part is the description; its parameter section (Google, reST or NumPy style)
    describes the fields. A parameter named `ctx` (or typed `ToolContext`) receives the tool context.
    In a notebook, the decorated function is registered with this kernel's agent (re-running replaces it).
    """

    def wrap(f: Callable[..., Any]) -> FunctionTool:
        made = function_tool(f, **options)
        announce(made)
        return made

    return wrap(func) if func is not None else wrap
