"""A NUL byte in a path is a clear INVALID_ARGS wherever it sits — also after `~`, where expanduser would
raise a bare ValueError (hypothesis found `~` + NUL; pinned here so it is checked on every run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_agent.base.sandbox import confine
from jupyter_agent.tools import Sandbox, ToolError


@pytest.mark.parametrize("path", ["~\x00", "~\x00/a", "a\x00b", "@\x00", "/tmp/\x00"])
def test_a_nul_byte_is_invalid_args_not_a_crash(tmp_path: Path, path: str) -> None:
    with pytest.raises(ToolError) as refused:
        Sandbox.at(tmp_path).confine(path)
    assert refused.value.code == "INVALID_ARGS"
    assert "contains a NUL byte, which no file path can hold" in refused.value.message


def test_confine_refuses_a_nul_byte_even_in_a_path_that_was_not_resolved_first(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as refused:
        confine(tmp_path / "a\x00b", (tmp_path,))
    assert refused.value.code == "INVALID_ARGS"


def test_a_long_path_with_a_nul_byte_is_quoted_cut_to_80_characters(tmp_path: Path) -> None:
    path = "x" * 79 + "\x00" + "y" * 200
    with pytest.raises(ToolError) as refused:
        Sandbox.at(tmp_path).confine(path)
    assert f"the path {path[:80]!r} contains a NUL byte" in refused.value.message
