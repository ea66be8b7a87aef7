"""A tool's `outputSchema` against the `structuredContent` it returned, said so the model can act on it.

The MCP spec has a server MUST return structured results that conform, and a client SHOULD validate them. The SDK
validates every call (never an `isError` result) and raises a `RuntimeError` whose text is jsonschema's multi-line
report, which reached the model as "mcp__s__price failed: RuntimeError: …". `output_problem` turns it into an error
naming the tool and where the content fails (`/items/0/price`), so the model does not build on data of a shape the
server promised otherwise.
"""

from __future__ import annotations

from ...masking import clip

_MESSAGE_CHARS = 300
_MISSING = "has an output schema but did not return structured content"
_INVALID = "Invalid structured content returned by tool"
_BAD_SCHEMA = "Invalid schema for tool"


def output_problem(label: str, error: RuntimeError) -> str | None:
    """What the SDK's output-schema error means, or None for another RuntimeError."""
    text = str(error)
    if _MISSING in text:
        return f"{label} declares an outputSchema but returned no structuredContent"
    if text.startswith(_BAD_SCHEMA):
        return f"{label} has an outputSchema that cannot be checked: {clip(text, _MESSAGE_CHARS)}"
    if not text.startswith(_INVALID):
        return None
    from jsonschema.exceptions import ValidationError

    cause = error.__cause__
    if not isinstance(cause, ValidationError):
        return f"{label} returned structuredContent that does not match its outputSchema"
    where = "/" + "/".join(str(part) for part in cause.absolute_path)
    return (
        f"{label} returned structuredContent that does not match its outputSchema at {where}: "
        f"{clip(str(cause.message), _MESSAGE_CHARS)}"
    )
