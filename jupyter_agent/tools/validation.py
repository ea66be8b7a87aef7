"""Turn pydantic errors into issues the model can act on: which field (JSON pointer), what was expected, the fix."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, cast, get_args

from pydantic import BaseModel, ValidationError

from ..base.result import Issue, ToolResult
from ..masking import shorten

_RECEIVED_CHARS = 60

# What each pydantic error type means for someone writing JSON, not Python.
_EXPECTED: dict[str, str] = {
    "missing": "a value (required)",
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer (no fractional part)",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "literal_error": "one of the allowed values",
    "enum": "one of the allowed values",
    "extra_forbidden": "no such field",
}


_SIZED: dict[str, str] = {
    "too_short": "at least {min_length} item(s)",
    "too_long": "at most {max_length} item(s)",
    "string_too_short": "a string of at least {min_length} character(s)",
    "string_too_long": "a string of at most {max_length} character(s)",
}


def json_pointer(loc: tuple[int | str, ...]) -> str:
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in loc]
    return "/" + "/".join(parts) if parts else "/"


def _received(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return shorten(text, _RECEIVED_CHARS)  # masked before the cut


def _allowed_fields(model: type[BaseModel], parent: tuple[int | str, ...]) -> list[str] | None:
    """Field names of the object where an unknown one was found (None when that object's fields are not
    known); a model whose fields are not pydantic fields (an MCP tool's JSON schema) answers through a
    classmethod `allowed_fields_at(parent)`."""
    custom = getattr(model, "allowed_fields_at", None)
    if callable(custom):
        return [str(name) for name in cast("Iterable[object]", custom(parent))]
    nested = _model_at(model, parent)
    return None if nested is None else [field.alias or name for name, field in nested.model_fields.items()]


def _model_at(model: type[BaseModel], parent: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The model of the object at `parent` (`/todos/0` → TodoItem): list indexes are stepped over, a field
    leads to the one model its type holds (`list[TodoItem]`, `Option | None`)."""
    current = model
    for step in parent:
        if isinstance(step, int):
            continue
        by_name = {field.alias or name: field for name, field in current.model_fields.items()}
        field = by_name.get(step)
        found = _models_in(field.annotation) if field is not None else []
        if len(found) != 1:
            return None
        current = found[0]
    return current


def _models_in(annotation: object) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in get_args(annotation) for model in _models_in(arg)]


def _fix(
    kind: str, field: str, model: type[BaseModel], expected: str, parent: tuple[int | str, ...] = ()
) -> str:
    if kind == "missing":
        return f"add `{field}`"
    if kind == "extra_forbidden":
        allowed = _allowed_fields(model, parent)
        if allowed is None:
            return f"remove `{field}`"
        return f"remove `{field}` (allowed fields: {', '.join(allowed) or 'none'})"
    return f"set `{field}` to {expected}"


def issues_from(error: ValidationError, model: type[BaseModel]) -> tuple[Issue, ...]:
    issues: list[Issue] = []
    for item in error.errors(include_url=False):
        loc = tuple(item["loc"])
        field = str(loc[-1]) if loc else "input"
        kind = item["type"]
        message = item["msg"]
        ctx: dict[str, Any] = dict(item.get("ctx") or {})
        if kind == "literal_error" and ctx:
            expected = f"one of {ctx.get('expected', '')}"
        elif kind in _SIZED and ctx:
            expected = _SIZED[kind].format(**ctx)
        else:  # constraints (ge, max_length, ...) carry their numbers in pydantic's own message
            expected = _EXPECTED.get(kind) or message.removeprefix("Input should be ").removeprefix(
                "Value error, "
            )
        received = None if kind == "missing" else _received(item.get("input"))
        issues.append(
            Issue(
                path=json_pointer(loc),
                message=_fix(kind, field, model, expected, loc[:-1]),
                expected=expected,
                received=received,
            )
        )
    return tuple(issues)


def invalid_args(tool_name: str, issues: tuple[Issue, ...]) -> ToolResult:
    """One model-facing text naming every bad field and how to fix it."""
    lines = [f"{tool_name} was called with invalid arguments; fix them and call it again:"]
    for issue in issues:
        got = f", got {issue.received}" if issue.received is not None else ""
        lines.append(f"- {issue.path}: expected {issue.expected}{got}. Fix: {issue.message}")
    noun = "issue" if len(issues) == 1 else "issues"
    return ToolResult.error(
        "INVALID_ARGS",
        "\n".join(lines),
        summary=f"invalid arguments ({len(issues)} {noun})",
        issues=issues,
    )


def validate(tool_name: str, model: type[BaseModel], raw: Any) -> BaseModel | ToolResult:
    """The parsed input, or an `INVALID_ARGS` result. Integers are accepted for numbers and whole floats for ints."""
    if not isinstance(raw, dict):
        issue = Issue(
            path="/",
            message="pass the arguments as a JSON object",
            expected="an object",
            received=_received(raw),
        )
        return invalid_args(tool_name, (issue,))
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        return invalid_args(tool_name, issues_from(exc, model))
