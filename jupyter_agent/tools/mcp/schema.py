"""An MCP tool's input: the server's JSON schema is the source of truth, validated with `jsonschema`.

Turning arbitrary JSON schema into a pydantic model is lossy ($ref, oneOf, patterns, formats), so the input
model is a passthrough: it keeps the arguments as they came and validates them against the server's own
schema. Failures become pydantic errors with real locations, so the dispatcher's INVALID_ARGS message names
the field by JSON pointer like it does for built-in tools. `jsonschema` interprets the schema (no code is
generated from what a server sent, unlike fastjsonschema); it is imported on first use because its format
checkers take seconds to import.

The schema the model sees is the server's, with `additionalProperties: false` on object schemas that list
their properties and don't say otherwise (root included), matching what every built-in tool sends.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError as SchemaError

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


def _close_objects(node: Any, *, root: bool = False) -> None:
    if isinstance(node, list):
        for item in node:  # pyright: ignore[reportUnknownVariableType]
            _close_objects(item)
        return
    if not isinstance(node, dict):
        return
    schema: dict[str, Any] = node  # pyright: ignore[reportUnknownVariableType]
    composed = "allOf" in schema  # its members see each other's fields as "additional": leave them open
    describes_fields = "properties" in schema or (root and schema.get("type") == "object")
    if (
        describes_fields
        and not composed
        and "additionalProperties" not in schema
        and "patternProperties" not in schema
    ):
        schema["additionalProperties"] = False
    schema.pop("title", None)  # noise for the model, as in the built-in tools' schemas
    for key, value in schema.items():
        if key in ("properties", "patternProperties", "$defs", "definitions") and isinstance(value, dict):
            for sub in value.values():  # pyright: ignore[reportUnknownVariableType]
                _close_objects(sub)
        elif key not in _NOT_SCHEMAS and key != "allOf":
            _close_objects(value)


def model_facing_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The server's input schema as sent to the model (a copy; the root is always an object schema)."""
    result = copy.deepcopy(schema) if schema else {}
    result.setdefault("type", "object")
    if result.get("type") == "object":
        result.setdefault("properties", {})
    _close_objects(result, root=True)
    return result


def _line_errors(error: SchemaError) -> list[InitErrorDetails]:
    loc = tuple(error.absolute_path)
    instance: Any = error.instance
    wanted: Any = error.validator_value
    if error.validator == "required" and isinstance(instance, dict):
        missing = [name for name in wanted if name not in instance]
        return [{"type": "missing", "loc": (*loc, name), "input": instance} for name in missing]
    if error.validator == "additionalProperties" and isinstance(instance, dict):
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
    phrase = _PHRASES.get(str(error.validator))
    if isinstance(wanted, list):
        wanted = " or ".join(str(item) for item in wanted)  # pyright: ignore[reportUnknownVariableType]
    text = phrase.format(wanted) if phrase else error.message
    detail = PydanticCustomError("json_schema", "Input should be {detail}", {"detail": text})
    return [{"type": detail, "loc": loc, "input": instance}]


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
        node: Any = cls.json_schema
        for step in parent:
            if not isinstance(node, dict):
                return []
            node = node.get("items") if isinstance(step, int) else node.get("properties", {}).get(step)
        properties = node.get("properties", {}) if isinstance(node, dict) else {}
        return [str(name) for name in properties] if isinstance(properties, dict) else []

    def arguments(self) -> dict[str, Any]:
        return dict(self.__pydantic_extra__ or {})


def arguments_model(name: str, schema: dict[str, Any]) -> type[JsonSchemaArguments]:
    """A passthrough input model for one tool, validating against `schema` (the model-facing one)."""
    return type(f"{name}Arguments", (JsonSchemaArguments,), {"json_schema": schema})
