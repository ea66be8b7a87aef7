"""The matchers the model feeds are bounded: brace expansion counted before it is done, globs translated for
RE2, and patterns RE2 cannot run refused with the reason."""

from __future__ import annotations

import pytest

from jupyter_agent.base.errors import ToolError
from jupyter_agent.base.linear_regex import compile_linear
from jupyter_agent.builtin_tools.files.globmatch import (
    MAX_BRACE_PATTERNS,
    expand_braces,
    glob_regex,
    glob_source,
    mentions_hidden,
    split_literal_prefix,
)


@pytest.mark.parametrize(
    ("pattern", "expanded"),
    [
        ("a.{py,pyi}", ["a.py", "a.pyi"]),
        ("{a,{b,c}}x", ["ax", "bx", "cx"]),
        ("{a}", ["{a}"]),
        ("{a", ["{a"]),
        ("x{1,2}{3,4}", ["x13", "x14", "x23", "x24"]),
        ("src/{a,b}/*.py", ["src/a/*.py", "src/b/*.py"]),
        ("plain", ["plain"]),
    ],
)
def test_braces_expand(pattern: str, expanded: list[str]) -> None:
    assert expand_braces(pattern) == expanded


def test_a_brace_explosion_is_refused_before_anything_is_expanded() -> None:
    assert len(expand_braces("{a,b}" * 10)) == MAX_BRACE_PATTERNS
    with pytest.raises(ToolError, match="expands to 2048 patterns") as refused:
        expand_braces("{a,b}" * 11)
    assert refused.value.code == "INVALID_ARGS"
    with pytest.raises(ToolError, match="over a billion"):
        expand_braces("{a,b,c,d,e,f,g,h,i,j}" * 40)
    with pytest.raises(ToolError, match="expands to 1100 patterns"):
        expand_braces("{" + ",".join(f"{{a{i},b{i}}}" for i in range(550)) + "}")


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.py", "a.py", True),
        ("*.py", "src/a.py", False),
        ("**/*.py", "src/deep/a.py", True),
        ("**/*.py", "a.py", True),
        ("src/**", "src/a/b", True),
        ("a?c", "abc", True),
        ("a?c", "a/c", False),
        ("[ab].txt", "b.txt", True),
        ("[!ab].txt", "c.txt", True),
        ("[!ab].txt", "a.txt", False),
        ("\\*.txt", "*.txt", True),
        ("\\*.txt", "a.txt", False),
        ("a b+(c).txt", "a b+(c).txt", True),
        ("*a" * 14 + "*b", "a" * 200 + "b", True),
        ("*a" * 14 + "*b", "a" * 200, False),
    ],
)
def test_globs_match_like_a_shell_with_globstar(pattern: str, path: str, matches: bool) -> None:
    assert (glob_regex(pattern).fullmatch(path) is not None) == matches


def test_literal_prefixes_and_hidden_segments() -> None:
    assert split_literal_prefix("src/data/**/*.csv") == ("src/data", "**/*.csv")
    assert split_literal_prefix("/abs/*.py") == ("/abs", "*.py")
    assert split_literal_prefix("*.py") == ("", "*.py")
    assert mentions_hidden(".github/**") and mentions_hidden("{a,.b}/x")
    assert not mentions_hidden("./src/*.py") and not mentions_hidden("../x")


def test_a_pattern_re2_cannot_run_is_refused_with_the_reason() -> None:
    with pytest.raises(ToolError, match="backreferences and lookaround") as refused:
        compile_linear("(a)\\1", what="filter")
    assert refused.value.code == "INVALID_ARGS" and "invalid escape sequence" in refused.value.message
    with pytest.raises(ToolError, match="filter 'x\\(\\?=y\\)'"):
        compile_linear("x(?=y)", what="filter")


def test_flags_reach_re2() -> None:
    assert compile_linear("ABC", what="p", ignore_case=True).search("xabc") is not None
    assert compile_linear("ABC", what="p").search("xabc") is None
    assert compile_linear("a.b", what="p", dot_all=True).search("a\nb") is not None
    assert compile_linear("a.b", what="p").search("a\nb") is None
    assert compile_linear("(a|aa)*c", what="p").search("a" * 100_000) is None  # linear, so it returns


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("./*.py", "a.py", True),
        ("src//*.py", "src/a.py", True),
        ("**", "a/b/c", True),
        ("a/**/b", "a/x/y/b", True),
        ("a/**/b", "a/b", True),
        ("a/**", "a/x/y", True),
        ("[]a].txt", "].txt", True),
        ("[]a].txt", "a.txt", True),
        ("[]a].txt", "b.txt", False),
        ("[a\\\\]x", "\\x", True),
        ("x[ab", "x[ab", True),
        ("a\\", "a\\", True),
        ("??", "ab", True),
        ("??", "abc", False),
        ("a\\?", "a?", True),
        ("a\\?", "ab", False),
    ],
)
def test_glob_translation_details(pattern: str, path: str, matches: bool) -> None:
    assert (
        compile_linear(glob_source(pattern), what="t", dot_all=True).fullmatch(path) is not None
    ) == matches


def test_brace_details() -> None:
    assert expand_braces("{a,{b,{c,d}}}") == ["a", "b", "c", "d"]
    assert expand_braces("x\\y{a,b}") == ["x\\ya", "x\\yb"]
    assert expand_braces("{a}" * 20 + "{b,c}") == ["{a}" * 20 + "b", "{a}" * 20 + "c"]
    assert split_literal_prefix("/*.py") == ("/", "*.py")


def test_a_refusal_quotes_a_long_pattern_cut_and_decodes_re2s_reason() -> None:
    with pytest.raises(ToolError) as refused:
        compile_linear("a" * 300 + "(?<=b)", what="filter")
    message = refused.value.message
    assert message.startswith(
        "filter '" + "a" * 200 + "…' is not a pattern the linear-time matcher accepts ("
    )
    with pytest.raises(ToolError) as backreference:
        compile_linear("(a)\\1", what="filter")
    assert "accepts (invalid escape sequence: \\1); backreferences" in backreference.value.message
