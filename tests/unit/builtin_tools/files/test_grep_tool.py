"""Grep: Claude Code's inputs over ripgrep (and the fallback), paths the model can Read, capped output."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import file_harness
from filetools_kit import no_ripgrep

from jupyter_agent.builtin_tools.files import GrepTool, RgLocator, find_rg
from jupyter_agent.tools import Limits

BACKENDS: list[tuple[str, RgLocator]] = [("ripgrep", find_rg), ("python fallback", no_ripgrep)]


def make_tree(root: Path) -> None:
    files = {
        "src/app.py": "import os\n\ndef main():\n    # TODO: wire up\n    return run()\n",
        "src/util.py": "def run():\n    return 42\n\n\ndef todo_list():\n    pass\n",
        "docs/guide.md": "# Guide\nTODO write this\nSee app.\n",
        "web/index.ts": "// todo: types\nexport const x = 1;\n",
        "build/gen.py": "# TODO generated\n",
        "win.py": "first\r\nTODO crlf\r\n",
    }
    for index, (rel, text) in enumerate(files.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
        os.utime(path, (1_700_000_000 + index, 1_700_000_000 + index))
    (root / ".gitignore").write_text("build/\n")


CASES: list[tuple[str, dict[str, Any], str]] = [
    (
        "files_with_matches lists files newest first with a count",
        {"pattern": "TODO"},
        "Found 3 files\nwin.py\ndocs/guide.md\nsrc/app.py",
    ),
    (
        "-i matches regardless of case",
        {"pattern": "todo", "-i": True},
        "Found 5 files\nwin.py\nweb/index.ts\ndocs/guide.md\nsrc/util.py\nsrc/app.py",
    ),
    (
        "content mode prints path:line:text sorted by path",
        {"pattern": "TODO", "output_mode": "content"},
        "docs/guide.md:2:TODO write this\nsrc/app.py:4:    # TODO: wire up\nwin.py:2:TODO crlf",
    ),
    (
        "-n false drops the line numbers",
        {"pattern": "return", "output_mode": "content", "-n": False},
        "src/app.py:    return run()\nsrc/util.py:    return 42",
    ),
    (
        "-C adds context lines marked with dashes and separates blocks",
        {"pattern": "return", "output_mode": "content", "-C": 1},
        "src/app.py-4-    # TODO: wire up\nsrc/app.py:5:    return run()\n--\n"
        "src/util.py-1-def run():\nsrc/util.py:2:    return 42\nsrc/util.py-3-",
    ),
    (
        "-A and -B override -C",
        {"pattern": "def main", "output_mode": "content", "-C": 3, "-B": 0, "-A": 1},
        "src/app.py:3:def main():\nsrc/app.py-4-    # TODO: wire up",
    ),
    (
        "count mode gives matching lines per file and a total",
        {"pattern": "def", "output_mode": "count"},
        "src/app.py:1\nsrc/util.py:2\n\nFound 3 matching lines in 2 files.",
    ),
    (
        "glob filters files by name at any depth",
        {"pattern": "TODO", "glob": "*.md"},
        "Found 1 file\ndocs/guide.md",
    ),
    (
        "glob braces offer alternatives",
        {"pattern": "(?i)todo", "glob": "*.{md,ts}"},
        "Found 2 files\nweb/index.ts\ndocs/guide.md",
    ),
    (
        "type filters by language",
        {"pattern": "return", "type": "py"},
        "Found 2 files\nsrc/util.py\nsrc/app.py",
    ),
    (
        "path limits the search to a directory and paths stay resolvable",
        {"pattern": "def", "path": "src", "output_mode": "content"},
        "src/app.py:3:def main():\nsrc/util.py:1:def run():\nsrc/util.py:5:def todo_list():",
    ),
    (
        "path may be a single file",
        {"pattern": "return", "path": "src/util.py", "output_mode": "content"},
        "src/util.py:2:    return 42",
    ),
    (
        "head_limit keeps the first entries and says so",
        {"pattern": "def", "output_mode": "content", "head_limit": 1},
        "src/app.py:3:def main():\n\n[Showing lines 1–1 of 3 (head_limit=1). Use offset=1 to see the next ones.]",
    ),
    (
        "offset skips entries, then head_limit applies, and the marker says which these are",
        {"pattern": "def", "output_mode": "content", "offset": 1, "head_limit": 1},
        "src/util.py:1:def run():\n\n[Showing lines 2–2 of 3 (offset=1; head_limit=1). Use offset=2 to see the next ones.]",
    ),
    (
        "the last page says so and offers no next offset",
        {"pattern": "def", "output_mode": "content", "offset": 2},
        "src/util.py:5:def todo_list():\n\n[Showing lines 3–3 of 3 (offset=2).]",
    ),
    (
        "an offset past the end says how many there are",
        {"pattern": "TODO", "offset": 5},
        "The result has 3 files, none past offset=5; pass a smaller offset.",
    ),
    (
        "multiline lets a pattern span lines",
        {"pattern": r"def run\(\):\n\s+return", "multiline": True, "output_mode": "content"},
        "src/util.py:1:def run():\nsrc/util.py:2:    return 42",
    ),
    (
        "no match says where it looked",
        {"pattern": "nothing-here", "path": "src"},
        "No matches for 'nothing-here' in 'src'.",
    ),
]


@pytest.mark.parametrize("locate_rg", [b[1] for b in BACKENDS], ids=[b[0] for b in BACKENDS])
@pytest.mark.parametrize(("tool_input", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_grep(tmp_path: Path, locate_rg: RgLocator, tool_input: dict[str, Any], expected: str) -> None:
    make_tree(tmp_path)
    result = file_harness(tmp_path, locate_rg=locate_rg).ok("Grep", tool_input)
    assert result.content.split("\n\n(ripgrep was not found")[0] == expected


def test_the_fallback_says_it_ran(tmp_path: Path) -> None:
    make_tree(tmp_path)
    result = file_harness(tmp_path, locate_rg=no_ripgrep).ok("Grep", pattern="42")
    assert result.content == (
        "Found 1 file\nsrc/util.py\n\n(ripgrep was not found, so a slower built-in search was used; it honours "
        "simple .gitignore rules but not negated ones.)"
    )
    assert result.data == {"backend": "python"}


def test_the_output_is_cut_to_the_character_budget_with_a_hint(tmp_path: Path) -> None:
    (tmp_path / "log.txt").write_text("".join(f"hit {n:03}\n" for n in range(200)))
    result = file_harness(tmp_path, limits=Limits(max_search_output_chars=60)).ok(
        "Grep", pattern="hit", output_mode="content"
    )
    assert result.content == (
        "log.txt:1:hit 000\nlog.txt:2:hit 001\nlog.txt:3:hit 002\n\n"
        "[Showing lines 1–3 of 200 (output kept under 60 characters). Use offset=3 to see the next ones, or "
        "narrow the search with path, glob or type.]"
    )
    assert result.summary == "Found 200 matching lines in 1 file"
    following = file_harness(tmp_path, limits=Limits(max_search_output_chars=60)).ok(
        "Grep", pattern="hit", output_mode="content", offset=3
    )
    assert following.content.startswith("log.txt:4:hit 003\nlog.txt:5:hit 004\n")


def test_content_mode_has_a_smaller_default_cut_between_lines_than_the_file_lists(tmp_path: Path) -> None:
    """A 5,000-line match comes back as about 8,000 characters of whole lines, not 30,000; a list of files
    keeps the larger budget (its entries are short and each is a path to Read)."""
    line = "value = compute(row)  # a line long enough to matter\n"
    (tmp_path / "log.txt").write_text(line * 5000)
    for n in range(400):
        (tmp_path / f"part_{n:03}.txt").write_text("value\n")
    content = file_harness(tmp_path).ok("Grep", pattern="value", output_mode="content", path="log.txt")
    body, marker = content.content.split("\n\n")
    lines = body.split("\n")
    assert all(
        entry.startswith("log.txt:") and entry.endswith("# a line long enough to matter") for entry in lines
    )
    assert 7_000 < len(body) <= 8_000
    assert marker == (
        f"[Showing lines 1–{len(lines)} of 5000 (output kept under 8,000 characters). Use offset={len(lines)} to "
        "see the next ones, or narrow the search with path, glob or type.]"
    )
    files = file_harness(tmp_path).ok("Grep", pattern="value")
    assert files.content.startswith("Found 401 files\n")
    assert "[Showing" not in files.content  # 401 short paths fit the 30,000-character budget whole


def test_very_long_lines_are_shortened_by_ripgrep(tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("var a=1;" + "x" * 5000 + "needle\n")
    result = file_harness(tmp_path, limits=Limits(max_line_chars=40)).ok(
        "Grep", pattern="var", output_mode="content"
    )
    assert len(result.content) < 200
    assert result.content.startswith("min.js:1:var a=1;")


def test_results_under_another_root_are_absolute_paths(tmp_path: Path) -> None:
    work, data = tmp_path / "work", tmp_path / "data"
    work.mkdir()
    data.mkdir()
    (data / "ref.txt").write_text("needle\n")
    harness = file_harness(work, roots=(work, data))
    result = harness.ok("Grep", pattern="needle", path=str(data), output_mode="content")
    assert result.content == f"{data.resolve()}/ref.txt:1:needle"
    assert harness.ok("Read", file_path=f"{data.resolve()}/ref.txt").content == "     1\tneedle"


def test_a_symlinked_directory_to_outside_is_not_searched(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("needle\n")
    os.symlink(tmp_path / "outside", root / "link")
    for locate in (find_rg, no_ripgrep):
        assert (
            file_harness(root, locate_rg=locate).ok("Grep", pattern="needle").content.startswith("No matches")
        )


def test_a_pattern_starting_with_a_dash_is_a_pattern_not_a_flag(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("--version\n")
    assert file_harness(tmp_path).ok("Grep", pattern="--version").content == "Found 1 file\na.txt"


def test_the_schema_offers_claude_codes_dashed_fields_with_descriptions() -> None:
    schema = GrepTool().input_schema()
    props = schema["properties"]
    assert list(props) == [
        "pattern",
        "path",
        "glob",
        "type",
        "output_mode",
        "-B",
        "-A",
        "-C",
        "-n",
        "-i",
        "head_limit",
        "offset",  # Claude Code's Grep pages with head_limit and offset too
        "multiline",
    ]
    assert all(props[name].get("description") for name in props), json.dumps(props, indent=1)
    assert props["output_mode"]["enum"] == ["files_with_matches", "content", "count"]
    assert schema["required"] == ["pattern"]
    assert schema["additionalProperties"] is False


def test_a_wrong_dashed_field_is_reported_by_its_json_name(tmp_path: Path) -> None:
    result = file_harness(tmp_path).call("Grep", {"pattern": "x", "-A": -2})
    assert result.error_code == "INVALID_ARGS"
    assert "/-A" in result.content


def test_grep_is_read_only_with_a_title_naming_the_pattern(tmp_path: Path) -> None:
    from jupyter_agent.builtin_tools.files import GrepInput

    tool = GrepTool()
    assert tool.read_only and tool.kind == "read" and tool.rule_field == "path"
    params = GrepInput.model_validate({"pattern": "TODO", "path": "src"})
    assert tool.title(params, file_harness(tmp_path).ctx) == 'Grep "TODO" in src'
