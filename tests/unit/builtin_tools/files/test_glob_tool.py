"""Glob: shell-style patterns with `**` and braces, newest first, capped, .gitignore respected — with and without rg."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from dispatch_harness import file_harness
from filetools_kit import no_ripgrep

from jupyter_agent.builtin_tools.files import RgLocator, find_rg
from jupyter_agent.tools import Limits

BACKENDS: list[tuple[str, RgLocator]] = [("ripgrep", find_rg), ("python fallback", no_ripgrep)]


def make_tree(root: Path) -> None:
    """Files with distinct modification times: later in this list is newer."""
    files = [
        "setup.py",
        "README.md",
        "src/app.py",
        "src/util/helpers.py",
        "src/ui/view.ts",
        "src/ui/view.tsx",
        "data/raw/sales.csv",
        "data/clean/sales.csv",
        "build/out.py",
        ".github/workflows/ci.yml",
        ".hidden.py",
    ]
    for index, rel in enumerate(files):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {rel}\n")
        os.utime(path, (1_700_000_000 + index, 1_700_000_000 + index))
    (root / ".gitignore").write_text("build/\n")
    os.utime(root / ".gitignore", (1_600_000_000, 1_600_000_000))


CASES: list[tuple[str, dict[str, str], list[str]]] = [
    ("`*.py` is the top level only", {"pattern": "*.py"}, ["setup.py"]),
    (
        "`**/*.py` is every depth, newest first, gitignored and hidden files skipped",
        {"pattern": "**/*.py"},
        ["src/util/helpers.py", "src/app.py", "setup.py"],
    ),
    (
        "a directory prefix narrows the search",
        {"pattern": "src/**/*.py"},
        ["src/util/helpers.py", "src/app.py"],
    ),
    ("braces offer alternatives", {"pattern": "src/ui/*.{ts,tsx}"}, ["src/ui/view.tsx", "src/ui/view.ts"]),
    (
        "braces may span directories",
        {"pattern": "data/{raw,clean}/*.csv"},
        ["data/clean/sales.csv", "data/raw/sales.csv"],
    ),
    ("`?` matches one character", {"pattern": "src/ui/view.t?"}, ["src/ui/view.ts"]),
    ("character classes work", {"pattern": "[RS]*"}, ["README.md"]),
    ("path sets the directory to search", {"pattern": "*.py", "path": "src"}, ["src/app.py"]),
    (
        "a hidden directory named in the pattern is searched",
        {"pattern": ".github/**/*.yml"},
        [".github/workflows/ci.yml"],
    ),
    ("an ignored directory named in the pattern is searched", {"pattern": "build/*.py"}, ["build/out.py"]),
    ("a literal file name finds that file", {"pattern": "src/app.py"}, ["src/app.py"]),
    ("an absolute pattern inside the root works", {"pattern": "<root>/src/*.py"}, ["src/app.py"]),
]


@pytest.mark.parametrize("locate_rg", [b[1] for b in BACKENDS], ids=[b[0] for b in BACKENDS])
@pytest.mark.parametrize(("tool_input", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_glob_patterns(
    tmp_path: Path, locate_rg: RgLocator, tool_input: dict[str, str], expected: list[str]
) -> None:
    make_tree(tmp_path)
    tool_input = {k: v.replace("<root>", str(tmp_path)) for k, v in tool_input.items()}
    result = file_harness(tmp_path, locate_rg=locate_rg).ok("Glob", tool_input)
    listed = result.content.split("\n\n")[0].splitlines()
    assert listed == expected
    assert result.summary == f"Found {len(expected)} file" + ("" if len(expected) == 1 else "s")


@pytest.mark.parametrize("locate_rg", [b[1] for b in BACKENDS], ids=[b[0] for b in BACKENDS])
def test_results_are_capped_with_a_count_of_the_rest(tmp_path: Path, locate_rg: RgLocator) -> None:
    make_tree(tmp_path)
    result = file_harness(tmp_path, limits=Limits(max_glob_results=2), locate_rg=locate_rg).ok(
        "Glob", pattern="**/*"
    )
    expected = (
        "data/clean/sales.csv\ndata/raw/sales.csv\n\n"
        "[Showing the 2 most recently modified of 8 files; 6 more not shown. Narrow the pattern or path to see them.]"
    )
    assert result.content.split("\n\n(ripgrep")[0] == expected


def test_no_match_says_where_it_looked(tmp_path: Path) -> None:
    make_tree(tmp_path)
    result = file_harness(tmp_path).ok("Glob", pattern="**/*.rs", path="src")
    assert result.content == "No files match '**/*.rs' in 'src'."
    assert result.summary == "No files found"


def test_a_prefix_directory_that_does_not_exist_is_no_match(tmp_path: Path) -> None:
    assert (
        file_harness(tmp_path).ok("Glob", pattern="nope/**/*.py").content
        == "No files match 'nope/**/*.py' in 'nope'."
    )


def test_the_fallback_says_it_ran(tmp_path: Path) -> None:
    make_tree(tmp_path)
    result = file_harness(tmp_path, locate_rg=no_ripgrep).ok("Glob", pattern="*.md")
    assert result.content == (
        "README.md\n\n(ripgrep was not found, so a slower built-in search was used; it honours simple .gitignore "
        "rules but not negated ones.)"
    )


def test_a_pattern_that_climbs_out_of_the_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    assert file_harness(root).call("Glob", pattern="../**/*").error_code == "OUTSIDE_ROOTS"


def test_a_symlinked_directory_to_outside_is_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.py").write_text("x\n")
    os.symlink(tmp_path / "outside", root / "link")
    for locate in (find_rg, no_ripgrep):
        assert "secret.py" not in file_harness(root, locate_rg=locate).ok("Glob", pattern="**/*.py").content


def test_glob_is_read_only_with_a_title_naming_the_pattern(tmp_path: Path) -> None:
    from jupyter_agent.builtin_tools.files import GlobInput, GlobTool

    tool = GlobTool()
    harness = file_harness(tmp_path)
    assert tool.read_only and tool.kind == "read"
    assert tool.title(GlobInput(pattern="**/*.py", path="src"), harness.ctx) == "Glob **/*.py in src"


def test_a_pattern_ending_in_a_slash_lists_that_directory(tmp_path: Path) -> None:
    make_tree(tmp_path)
    assert file_harness(tmp_path).ok("Glob", pattern="src/").content == "src/app.py"


@pytest.mark.parametrize(("backend", "locate"), BACKENDS, ids=[b for b, _ in BACKENDS])
def test_the_red_teams_worst_patterns_finish_and_brace_explosions_are_refused(
    tmp_path: Path, backend: str, locate: RgLocator
) -> None:
    (tmp_path / ("a" * 80)).write_text("")
    (tmp_path / ("a" * 40 + "b")).write_text("")
    harness = file_harness(tmp_path, locate_rg=locate)
    found = harness.ok("Glob", pattern="*a" * 14 + "*b")  # exponential for a backtracking matcher
    assert found.content.splitlines()[0] == "a" * 40 + "b"
    exploded = harness.call("Glob", pattern="{a,b}" * 14)
    assert exploded.error_code == "INVALID_ARGS"
    assert "expands to 16384 patterns" in exploded.content and "at most 1024" in exploded.content
    listed = harness.ok("Glob", pattern="{a,b}" * 10 + "*").content.splitlines()
    assert sorted(listed[:2]) == sorted(["a" * 40 + "b", "a" * 80])
