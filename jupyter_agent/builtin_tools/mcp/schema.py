"""An MCP tool's input: the server's JSON schema is the source of truth, validated with `jsonschema`.

Turning arbitrary JSON schema into a pydantic model is lossy ($ref, oneOf, patterns, formats), so the input
model is a passthrough: it keeps the arguments as they came and validates them against the server's own
schema. Failures become pydantic errors with real locations, so the dispatcher's INVALID_ARGS message names
the field by JSON pointer like it does for built-in tools. `jsonschema` interprets the schema (no code is
generated from what a server sent, unlike fastjsonschema); it is imported on first use because its format
checkers take seconds to import.

The schema the model sees is the server's, with `additionalProperties: false` on object schemas that list
their properties and don't say otherwise (root included), matching what every built-in tool sends. A schema
that takes its fields from elsewhere (`$ref`, `allOf`) stays open: beside a `$ref`, `additionalProperties`
would see every referenced field as extra. A root `{"type": "object"}` that lists no properties means "any
object" in JSON Schema and stays so. A root `$ref` to a local definition (pydantic writes them) is
inlined, so the model sees the fields at the top.
"""

from __future__ import annotations

import copy
import re
from typing import TYPE_CHECKING, Any, ClassVar, Self, cast

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from ...base.json_values import is_array, is_object

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError as SchemaError

_LOCAL_REF = re.compile(r"^#/(\$defs|definitions)/([^/]+)$")
_COMPOSED = ("$ref", "allOf", "anyOf", "oneOf")
_NOT_SCHEMAS = ("enum", "const", "default", "examples", "required")
_TYPE_ERRORS = {
    "string": "string_type",
    "integer": "int_type",
    "number": "float_type",
    "boolean": "bool_type",
    "array": "list_type",
    "object": "dict_type",
}

#: Constraint failures phrased as what is expected, like pydantic's own messages.
_PHRASES = {
    "minimum": "greater than or equal to {}",
    "maximum": "less than or equal to {}",
    "exclusiveMinimum": "greater than {}",
    "exclusiveMaximum": "less than {}",
    "minLength": "a string of at least {} characters",
    "maxLength": "a string of at most {} characters",
    "minItems": "an array of at least {} items",
    "maxItems": "an array of at most {} items",
    "pattern": "a string matching the pattern {}",
    "const": "exactly {!r}",
    "anyOf": "a value matching one of the allowed schemas",
    "oneOf": "a value matching exactly one of the allowed schemas",
    "type": "a value of type {}",
}


def _close_objects(node: Any) -> None:
    if is_array(node):
        for item in node:
            _close_objects(item)
        return
    if not is_object(node):
        return
    schema = node
    # Fields that come from elsewhere would be "additional" to a closed schema: leave it open.
    composed = "allOf" in schema or "$ref" in schema
    if (
        "properties" in schema
        and not composed
        and "additionalProperties" not in schema
        and "patternProperties" not in schema
    ):
        schema["additionalProperties"] = False
    schema.pop("title", None)  # noise for the model, as in the built-in tools' schemas
    for key, value in schema.items():
        if key in ("properties", "patternProperties", "$defs", "definitions") and is_object(value):
            for sub in value.values():
                _close_objects(sub)
        elif key not in _NOT_SCHEMAS and key != "allOf":
            _close_objects(value)


def _inline_root_ref(schema: dict[str, Any]) -> dict[str, Any]:
    """`{"$ref": "#/$defs/Args", "$defs": {...}}` as the definition itself (the `$defs` kept for inner refs)."""
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        return schema
    match = _LOCAL_REF.match(ref)
    defs = schema.get(match.group(1)) if match else None
    target = defs.get(match.group(2)) if is_object(defs) and match else None
    if not is_object(target) or "$ref" in target:
        return schema
    rest = {key: value for key, value in schema.items() if key != "$ref"}
    return {**rest, **copy.deepcopy(target)}


def model_facing_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The server's input schema as sent to the model (a copy; the root is always an object schema)."""
    result = _inline_root_ref(copy.deepcopy(schema) if schema else {})
    result.setdefault("type", "object")
    _close_objects(result)
    return result


def _line_errors(error: SchemaError) -> list[InitErrorDetails]:
    loc = tuple(error.absolute_path)
    instance: Any = error.instance
    wanted: Any = error.validator_value
    if error.validator == "required" and is_object(instance):
        missing = [name for name in wanted if name not in instance]
        return [{"type": "missing", "loc": (*loc, name), "input": instance} for name in missing]
    if error.validator == "additionalProperties" and is_object(instance):
        known: dict[str, Any] = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        extra = [name for name in instance if name not in known] or ["?"]
        return [
            {"type": "extra_forbidden", "loc": (*loc, name), "input": instance.get(name)} for name in extra
        ]
    if (
        error.validator == "type"
        and isinstance(error.validator_value, str)
        and error.validator_value in _TYPE_ERRORS
    ):
        return [{"type": _TYPE_ERRORS[error.validator_value], "loc": loc, "input": instance}]
    if error.validator == "enum":
        expected = ", ".join(repr(v) for v in wanted)
        return [{"type": "literal_error", "loc": loc, "input": instance, "ctx": {"expected": expected}}]
    if error.validator in ("anyOf", "oneOf") and isinstance(wanted, list):
        options = "; ".join(
            f"({n}) {_describe(option)}" for n, option in enumerate(cast(list[Any], wanted), 1)
        )
        which = "one of" if error.validator == "anyOf" else "exactly one of"
        detail = PydanticCustomError(
            "json_schema", "Input should be {detail}", {"detail": f"{which}: {options}"}
        )
        return [{"type": detail, "loc": loc, "input": instance}]
    phrase = _PHRASES.get(str(error.validator))
    if is_array(wanted):
        wanted = " or ".join(str(item) for item in wanted)
    text = phrase.format(wanted) if phrase else error.message
    detail = PydanticCustomError("json_schema", "Input should be {detail}", {"detail": text})
    return [{"type": detail, "loc": loc, "input": instance}]


def _describe(schema: Any) -> str:
    """One alternative of an anyOf/oneOf in a few words: `a string`, `null`, `an object with fields a, b`."""
    if not isinstance(schema, dict):
        return "anything" if schema is True else "nothing"
    node = cast(dict[str, Any], schema)
    if isinstance(node.get("$ref"), str):
        return f"a {str(node['$ref']).rsplit('/', 1)[-1]}"
    if "const" in node:
        return f"exactly {node['const']!r}"
    if isinstance(node.get("enum"), list):
        return "one of " + ", ".join(repr(v) for v in cast(list[Any], node["enum"]))
    kind = node.get("type")
    if kind == "object" or isinstance(node.get("properties"), dict):
        fields = list(cast(dict[str, Any], node.get("properties") or {}))
        required = [str(name) for name in cast(list[Any], node.get("required") or [])]
        text = f"an object with fields {', '.join(fields)}" if fields else "an object"
        return text + (f" (required: {', '.join(required)})" if required else "")
    if kind == "array":
        return f"an array of {_describe(node.get('items', True))}" if "items" in node else "an array"
    if isinstance(kind, list):
        return " or ".join("null" if k == "null" else f"a {k}" for k in cast(list[Any], kind))
    if isinstance(kind, str):
        return "null" if kind == "null" else f"a{'n' if kind[0] in 'aeiou' else ''} {kind}"
    return str(node.get("description") or "a value of that schema")


class JsonSchemaArguments(BaseModel):
    """Arguments for a tool whose schema is JSON schema (an MCP tool): kept as given, validated by the schema."""

    model_config = ConfigDict(extra="allow", frozen=True)
    json_schema: ClassVar[dict[str, Any]] = {}

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Self:  # pyright: ignore[reportIncompatibleMethodOverride]
        from jsonschema import validators  # imported late: it takes seconds (see connect_mcp_servers)

        validator_class = validators.validator_for(cls.json_schema, default=validators.Draft202012Validator)
        errors = sorted(
            validator_class(cls.json_schema).iter_errors(obj), key=lambda e: list(e.absolute_path)
        )
        if errors:
            details = [detail for error in errors for detail in _line_errors(error)]
            raise ValidationError.from_exception_data(cls.__name__, details)
        return super().model_validate(obj, **kwargs)

    @classmethod
    def allowed_fields_at(cls, parent: tuple[int | str, ...]) -> list[str]:
        """The property names the schema allows at `parent` (for "remove `x` (allowed fields: …)")."""
        node: object = cls.json_schema
        for step in parent:
            if not is_object(node):
                return []
            if isinstance(step, int):
                node = node.get("items")
            else:
                properties = node.get("properties", {})
                node = properties.get(step) if is_object(properties) else None
        properties = node.get("properties") if is_object(node) else None
        return list(properties) if is_object(properties) else []

    def arguments(self) -> dict[str, Any]:
        return dict(self.__pydantic_extra__ or {})


def arguments_model(name: str, schema: dict[str, Any]) -> type[JsonSchemaArguments]:
    """A passthrough input model for one tool, validating against `schema` (the model-facing one)."""
    return type(f"{name}Arguments", (JsonSchemaArguments,), {"json_schema": schema})
