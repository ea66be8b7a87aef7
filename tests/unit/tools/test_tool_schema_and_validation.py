"""What the model sees of a tool: the schema from the pydantic model, and validation messages. Pinned."""

from __future__ import annotations

from typing import Literal

from dispatch_harness import ToolHarness
from pydantic import Field, model_validator

from jupyter_agent.base.result import ToolResult
from jupyter_agent.tools import ToolContext, tool
from jupyter_agent.tools.core import Tool, ToolInput
from jupyter_agent.tools.validation import validate


class _EditLike(ToolInput):
    file_path: str
    """Absolute or relative path of the file."""
    edits: list[_Pair] = Field(min_length=1)
    """The replacements, applied in order."""
    mode: Literal["fast", "careful"] = "careful"
    """How hard to try."""


class _Pair(ToolInput):
    old_string: str
    """Text to find."""
    new_string: str
    """Its replacement."""


_EditLike.model_rebuild()


class _MultiEdit(Tool[_EditLike]):
    name = "MultiEdit"
    description = "Apply several edits."
    kind = "edit"
    Input = _EditLike

    async def run(self, params: _EditLike, ctx: ToolContext) -> ToolResult:
        return ToolResult.ok(f"{len(params.edits)} edits")


@tool(read_only=True)
def lookup(key: str, limit: int = 10, scale: float = 1.0) -> str:
    """Find a key in the catalogue.

    Args:
        key: the catalogue key, e.g. "sku-12"
        limit: how many rows at most
        scale: multiplier for prices
    """
    return f"{key}:{limit}:{scale}"


def _dispatch(tool_input: object, name: str = "MultiEdit") -> ToolResult:
    return ToolHarness("/tmp", [_MultiEdit(), lookup], mode="bypassPermissions").call(name, tool_input)


def test_schema_comes_from_the_model_with_docstrings_and_no_extra_properties() -> None:
    assert _MultiEdit().to_param() == {
        "name": "MultiEdit",
        "description": "Apply several edits.",
        "input_schema": {
            "$defs": {
                "_Pair": {
                    "additionalProperties": False,
                    "properties": {
                        "old_string": {"description": "Text to find.", "type": "string"},
                        "new_string": {"description": "Its replacement.", "type": "string"},
                    },
                    "required": ["old_string", "new_string"],
                    "type": "object",
                }
            },
            "additionalProperties": False,
            "properties": {
                "file_path": {"description": "Absolute or relative path of the file.", "type": "string"},
                "edits": {
                    "description": "The replacements, applied in order.",
                    "items": {"$ref": "#/$defs/_Pair"},
                    "minItems": 1,
                    "type": "array",
                },
                "mode": {
                    "default": "careful",
                    "description": "How hard to try.",
                    "enum": ["fast", "careful"],
                    "type": "string",
                },
            },
            "required": ["file_path", "edits"],
            "type": "object",
        },
    }


def test_function_tool_schema_uses_the_signature_and_the_docstring() -> None:
    assert lookup.to_param() == {
        "name": "lookup",
        "description": "Find a key in the catalogue.",
        "input_schema": {
            "additionalProperties": False,
            "properties": {
                "key": {"description": 'the catalogue key, e.g. "sku-12"', "type": "string"},
                "limit": {"default": 10, "description": "how many rows at most", "type": "integer"},
                "scale": {"default": 1.0, "description": "multiplier for prices", "type": "number"},
            },
            "required": ["key"],
            "type": "object",
        },
    }
    assert lookup.read_only and lookup.kind == "read"


def test_each_bad_field_is_named_by_json_pointer_with_the_fix() -> None:
    result = _dispatch(
        {
            "file_path": 3,
            "edits": [{"old_string": "a"}, {"old_string": "x", "new_string": 1}],
            "colour": "red",
        }
    )
    assert result.error_code == "INVALID_ARGS"
    assert result.content == (
        "INVALID_ARGS: MultiEdit was called with invalid arguments; fix them and call it again:\n"
        "- /file_path: expected a string, got 3. Fix: set `file_path` to a string\n"
        "- /edits/0/new_string: expected a value (required). Fix: add `new_string`\n"
        "- /edits/1/new_string: expected a string, got 1. Fix: set `new_string` to a string\n"
        '- /colour: expected no such field, got "red". Fix: remove `colour` (allowed fields: file_path, edits, mode)'
    )
    assert [i.path for i in result.issues] == [
        "/file_path",
        "/edits/0/new_string",
        "/edits/1/new_string",
        "/colour",
    ]


def test_literal_and_constraint_errors_say_what_is_allowed() -> None:
    result = _dispatch({"file_path": "a", "edits": [], "mode": "quick"})
    assert result.content == (
        "INVALID_ARGS: MultiEdit was called with invalid arguments; fix them and call it again:\n"
        "- /edits: expected at least 1 item(s), got []. Fix: set `edits` to at least 1 item(s)\n"
        "- /mode: expected one of 'fast' or 'careful', got \"quick\". Fix: set `mode` to one of 'fast' or 'careful'"
    )


def test_received_values_are_cut_to_about_sixty_characters() -> None:
    result = _dispatch({"file_path": "x" * 500, "edits": "nope"})
    assert result.issues[0].received is not None
    assert len(result.issues[0].received) <= 60


def test_integers_are_accepted_for_numbers_and_whole_floats_for_integers() -> None:
    assert _dispatch({"key": "k", "limit": 3.0, "scale": 2}, name="lookup").content == "k:3:2.0"


def test_a_fractional_number_for_an_integer_is_refused() -> None:
    result = _dispatch({"key": "k", "limit": 2.5}, name="lookup")
    assert "- /limit: expected an integer (no fractional part), got 2.5" in result.content


def test_arguments_that_are_not_an_object_are_refused() -> None:
    assert _dispatch(["a"], name="lookup").content == (
        "INVALID_ARGS: lookup was called with invalid arguments; fix them and call it again:\n"
        '- /: expected an object, got ["a"]. Fix: pass the arguments as a JSON object'
    )


def test_an_unknown_tool_lists_the_available_ones() -> None:
    result = _dispatch({}, name="Bogus")
    assert (
        result.content == "UNKNOWN_TOOL: there is no tool named 'Bogus'; available tools: MultiEdit, lookup"
    )


def test_a_tool_result_becomes_an_anthropic_tool_result_block() -> None:
    error = ToolResult.error("FILE_NOT_FOUND", "no file 'a.py'; did you mean 'b.py'?")
    assert error.to_block("toolu_1") == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [{"type": "text", "text": "FILE_NOT_FOUND: no file 'a.py'; did you mean 'b.py'?"}],
        "is_error": True,
    }


class _Positive(ToolInput):
    n: int

    @model_validator(mode="after")
    def _check(self) -> _Positive:
        if self.n <= 0:
            raise ValueError("n must be positive, e.g. 1")
        return self


class _Nothing(ToolInput):
    pass


def test_a_whole_input_error_is_at_the_root_pointer_with_the_validators_own_words() -> None:
    result = validate("t", _Positive, {"n": 0})
    assert isinstance(result, ToolResult)
    assert result.content == (
        "INVALID_ARGS: t was called with invalid arguments; fix them and call it again:\n"
        '- /: expected n must be positive, e.g. 1, got {"n": 0}. Fix: set `input` to n must be positive, e.g. 1'
    )
    assert result.summary == "invalid arguments (1 issue)"


def test_the_summary_counts_the_issues() -> None:
    result = _dispatch({"file_path": 3, "edits": "x"})
    assert result.summary == "invalid arguments (2 issues)"


def test_a_tool_without_fields_says_none_are_allowed() -> None:
    result = validate("t", _Nothing, {"x": 1})
    assert isinstance(result, ToolResult)
    assert result.content.endswith("Fix: remove `x` (allowed fields: none)")


def test_received_text_keeps_non_ascii_and_is_cut_at_sixty_characters_with_an_ellipsis() -> None:
    assert validate_received({"n": "é"}) == '"é"'
    exactly = "a" * 58  # with its quotes: 60 characters, not cut
    assert validate_received({"n": exactly}) == f'"{exactly}"'
    longer = "b" * 59  # 61 with quotes: cut to 59 and an ellipsis
    assert validate_received({"n": longer}) == f'"{longer[:58]}…'


def test_a_received_value_that_is_not_json_is_shown_as_python_writes_it() -> None:
    assert validate_received({"n": b"\x00"}) == "b'\\x00'"


def validate_received(raw: dict[str, object]) -> str | None:
    class _Int(ToolInput):
        n: int

    result = validate("t", _Int, raw)
    assert isinstance(result, ToolResult)
    return result.issues[0].received
