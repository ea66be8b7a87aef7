"""A tool outside the package declares its own error identifier without editing the result module."""

from __future__ import annotations

import pytest

from jupyter_agent.base.result import error_code, known_error_codes
from jupyter_agent.tools import ToolError, ToolResult

PAGE_NOT_FOUND = error_code("PAGE_NOT_FOUND")


def test_a_declared_code_prefixes_the_message_like_a_built_in_one() -> None:
    result = ToolResult.error(PAGE_NOT_FOUND, "no page at /x; check the URL")
    assert result.content == "PAGE_NOT_FOUND: no page at /x; check the URL"
    assert result.error_code == "PAGE_NOT_FOUND"
    assert ToolError(PAGE_NOT_FOUND, "gone").code == "PAGE_NOT_FOUND"
    assert {"PAGE_NOT_FOUND", "TEXT_NOT_FOUND"} <= known_error_codes()


def test_a_code_must_be_upper_snake_and_new() -> None:
    with pytest.raises(ValueError, match="must be UPPER_SNAKE_CASE"):
        error_code("page-not-found")
    with pytest.raises(ValueError, match="TIMEOUT is a built-in error code"):
        error_code("TIMEOUT")
