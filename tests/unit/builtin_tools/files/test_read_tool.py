"""Read: numbered lines, ranges, caps, encodings, images, notebooks, and what it records for read-before-write."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from dispatch_harness import file_harness
from filetools_kit import png_bytes

from jupyter_agent.tools import Limits

TEN_LINES = "".join(f"line {n}\n" for n in range(1, 11))


def numbered(*pairs: tuple[int, str]) -> str:
    return "\n".join(f"{n:>6}\t{text}" for n, text in pairs)


TEXT_CASES: list[tuple[str, bytes, dict[str, object], Limits, str]] = [
    (
        "a small file comes back numbered like cat -n",
        b"import os\n\nprint(os.getcwd())\n",
        {},
        Limits(),
        numbered((1, "import os"), (2, ""), (3, "print(os.getcwd())")),
    ),
    (
        "a last line without a newline is still a line",
        b"a\nb",
        {},
        Limits(),
        numbered((1, "a"), (2, "b")),
    ),
    (
        "offset and limit select a range and say how to go on",
        TEN_LINES.encode(),
        {"offset": 3, "limit": 2},
        Limits(),
        numbered((3, "line 3"), (4, "line 4")) + "\n\n[Showing lines 3–4 of 10. Use offset=5 to read more.]",
    ),
    (
        "offset zero is read as the first line",
        TEN_LINES.encode(),
        {"offset": 0, "limit": 1},
        Limits(),
        numbered((1, "line 1")) + "\n\n[Showing lines 1–1 of 10. Use offset=2 to read more.]",
    ),
    (
        "the default limit stops at max_read_lines",
        TEN_LINES.encode(),
        {},
        Limits(max_read_lines=3),
        numbered((1, "line 1"), (2, "line 2"), (3, "line 3"))
        + "\n\n[Showing lines 1–3 of 10. Use offset=4 to read more.]",
    ),
    (
        "a long line is cut with a marker saying how much is missing",
        b"short\n" + b"y" * 25 + b"\n",
        {},
        Limits(max_line_chars=10),
        numbered((1, "short"), (2, "yyyyyyyyyy… [line cut: 15 more characters]")),
    ),
    (
        "CRLF line endings are not shown",
        b"one\r\ntwo\r\n",
        {},
        Limits(),
        numbered((1, "one"), (2, "two")),
    ),
    (
        "a UTF-8 byte-order mark is not shown",
        b"\xef\xbb\xbfcaf\xc3\xa9\n",
        {},
        Limits(),
        numbered((1, "café")),
    ),
    (
        "a UTF-16 file with a BOM is decoded",
        "ℤ ∈ ℝ\nok\n".encode("utf-16"),
        {},
        Limits(),
        numbered((1, "ℤ ∈ ℝ"), (2, "ok")),
    ),
    (
        "a file that is not UTF-8 is read in the fallback encoding (cp1252)",
        b"na\xefve \x93quoted\x94\n",
        {},
        Limits(),
        numbered((1, "naïve “quoted”")),
    ),
    (
        "a byte the fallback encoding does not define shows as a replacement character",
        b"na\xefve \x81\n",
        {},
        Limits(),
        numbered((1, "naïve \ufffd")),
    ),
    (
        "a UTF-8 file with one stray byte stays UTF-8, the stray byte a replacement character",
        "crème brûlée ".encode() + b"\xe9\n",
        {},
        Limits(),
        numbered((1, "crème brûlée \ufffd")),
    ),
    (
        "a coding declaration decides",
        "# -*- coding: cp1251 -*-\nпривет\n".encode("cp1251"),
        {},
        Limits(),
        numbered((1, "# -*- coding: cp1251 -*-"), (2, "привет")),
    ),
    (
        "the output stops at the character budget and says where to go on",
        b"".join(b"%d" % n * 30 + b"\n" for n in range(1, 10)),
        {"offset": 1, "limit": 9},
        Limits(max_file_bytes=100),
        numbered((1, "1" * 30), (2, "2" * 30))
        + "\n\n[Showing lines 1–2 (output kept under 100 characters). Use offset=3 to read more.]",
    ),
    (
        "a file over the cap is read in part when offset and limit are given",
        b"".join(b"row %d\n" % n for n in range(1, 101)),
        {"offset": 98, "limit": 10},
        Limits(max_file_bytes=64),
        numbered((98, "row 98"), (99, "row 99"), (100, "row 100")),
    ),
    (
        "reading a big file in part says the file continues",
        b"".join(b"row %d\n" % n for n in range(1, 101)),
        {"offset": 50, "limit": 2},
        Limits(max_file_bytes=64),
        numbered((50, "row 50"), (51, "row 51")) + "\n\n[Showing lines 50–51. Use offset=52 to read more.]",
    ),
    (
        "an offset past the end says how long the file is",
        TEN_LINES.encode(),
        {"offset": 40},
        Limits(),
        "'f.txt' has 10 lines; offset 40 is past the end. Use an offset from 1 to 10.",
    ),
    (
        "an offset past the end of a big file is found by streaming",
        b"".join(b"row %d\n" % n for n in range(1, 101)),
        {"offset": 500, "limit": 5},
        Limits(max_file_bytes=64),
        "'f.txt' has 100 lines; offset 500 is past the end. Use an offset from 1 to 100.",
    ),
    (
        "an empty file says so",
        b"",
        {},
        Limits(),
        "'f.txt' is empty (0 bytes).",
    ),
]


@pytest.mark.parametrize(
    ("data", "extra", "limits", "expected"), [c[1:] for c in TEXT_CASES], ids=[c[0] for c in TEXT_CASES]
)
def test_text_reads(
    tmp_path: Path, data: bytes, extra: dict[str, object], limits: Limits, expected: str
) -> None:
    (tmp_path / "f.txt").write_bytes(data)
    result = file_harness(tmp_path, limits=limits).ok("Read", {"file_path": "f.txt", **extra})
    assert result.content == expected


def test_a_long_line_deep_in_a_streamed_file_is_cut_without_loading_it(tmp_path: Path) -> None:
    data = b"head\n" * 50 + b"z" * 100_000 + b"\r\n" + b"tail\n"
    (tmp_path / "f.txt").write_bytes(data)
    harness = file_harness(tmp_path, limits=Limits(max_file_bytes=1000, max_line_chars=5))
    result = harness.ok("Read", file_path="f.txt", offset=51, limit=2)
    assert result.content == numbered((51, "zzzzz… [line cut: 99995 more characters]"), (52, "tail"))


def test_the_summary_names_the_file_and_the_lines(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text(TEN_LINES)
    harness = file_harness(tmp_path)
    assert harness.ok("Read", file_path="f.txt").summary == "Read f.txt (10 lines)"
    assert harness.ok("Read", file_path="f.txt", offset=2, limit=3).summary == "Read f.txt lines 2–4"


def test_paths_may_be_absolute_tilde_free_or_at_prefixed(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x\n")
    harness = file_harness(tmp_path)
    for path in (str(tmp_path / "f.txt"), "@f.txt", "./f.txt"):
        assert harness.ok("Read", file_path=path).content == numbered((1, "x"))


def test_an_image_comes_back_as_an_image_block(tmp_path: Path) -> None:
    data = png_bytes()
    (tmp_path / "plot.png").write_bytes(data)
    result = file_harness(tmp_path).ok("Read", file_path="plot.png")
    assert result.content == f"Image 'plot.png' (image/png, {len(data)} B) is attached."
    (image,) = result.images
    assert image.media_type == "image/png"
    assert base64.b64decode(image.data) == data
    block = result.to_block("toolu_1")
    assert [part["type"] for part in block["content"]] == ["text", "image"]


def test_an_image_is_labelled_by_its_bytes_not_its_extension(tmp_path: Path) -> None:
    (tmp_path / "plot.jpg").write_bytes(png_bytes())
    (image,) = file_harness(tmp_path).ok("Read", file_path="plot.jpg").images
    assert image.media_type == "image/png"


def _notebook(cells: list[dict[str, object]]) -> str:
    return json.dumps(
        {
            "cells": cells,
            "metadata": {"language_info": {"name": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


CELLS: list[dict[str, object]] = [
    {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Sales\n", "Load the data."]},
    {
        "cell_type": "code",
        "id": "load",
        "metadata": {},
        "execution_count": 3,
        "source": "df = load()\ndf.shape",
        "outputs": [
            {"output_type": "stream", "name": "stdout", "text": ["loaded\n"]},
            {
                "output_type": "execute_result",
                "execution_count": 3,
                "metadata": {},
                "data": {"text/plain": "(12, 4)"},
            },
            {
                "output_type": "display_data",
                "metadata": {},
                "data": {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"},
            },
        ],
    },
    {"cell_type": "code", "id": "fix", "metadata": {}, "execution_count": None, "source": "", "outputs": []},
]


def test_a_notebook_is_shown_as_cells_with_ids_and_outputs(tmp_path: Path) -> None:
    (tmp_path / "sales.ipynb").write_text(_notebook(CELLS))
    result = file_harness(tmp_path).ok("Read", file_path="sales.ipynb")
    assert result.content == (
        "Notebook 'sales.ipynb' (python, 3 cells):\n"
        '<cell id="intro" index="1" type="markdown">\n'
        "# Sales\n"
        "Load the data.\n"
        "</cell>\n"
        '<cell id="load" index="2" type="code" execution_count="3">\n'
        "df = load()\n"
        "df.shape\n"
        "</cell>\n"
        "<outputs>\n"
        "loaded\n"
        "(12, 4)\n"
        "<Figure>\n"
        "[image/png output, 9 B]\n"
        "</outputs>\n"
        '<cell id="fix" index="3" type="code" execution_count="">\n'
        "\n"
        "</cell>"
    )
    assert result.summary == "Read sales.ipynb (cells 1–3 of 3)"


def test_offset_and_limit_count_cells_in_a_notebook(tmp_path: Path) -> None:
    (tmp_path / "sales.ipynb").write_text(_notebook(CELLS))
    result = file_harness(tmp_path).ok("Read", file_path="sales.ipynb", offset=1, limit=1)
    assert result.content == (
        "Notebook 'sales.ipynb' (python, 3 cells):\n"
        '<cell id="intro" index="1" type="markdown">\n# Sales\nLoad the data.\n</cell>\n\n'
        "[Showing cells 1–1 of 3. Use offset=2 to read on.]"
    )


def test_reading_a_notebook_records_each_cell_for_notebook_edit(tmp_path: Path) -> None:
    (tmp_path / "sales.ipynb").write_text(_notebook(CELLS))
    harness = file_harness(tmp_path)
    harness.ok("Read", file_path="sales.ipynb")
    real = str((tmp_path / "sales.ipynb").resolve())
    harness.ctx.reads.require_fresh(f"{real}#load", "df = load()\ndf.shape", what="cell", reread="Read it")
    assert harness.ctx.reads.has_read(real)


def test_a_json_file_named_ipynb_that_is_not_a_notebook_is_shown_as_text(tmp_path: Path) -> None:
    (tmp_path / "odd.ipynb").write_text('{"hello": 1}\n')
    assert file_harness(tmp_path).ok("Read", file_path="odd.ipynb").content == numbered((1, '{"hello": 1}'))


def test_a_read_lets_a_later_write_replace_the_file(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text(TEN_LINES)
    harness = file_harness(tmp_path)
    harness.ok("Read", file_path="f.txt", offset=2, limit=1)
    harness.ok("Write", file_path="f.txt", content="new\n")
    assert (tmp_path / "f.txt").read_text() == "new\n"


def test_a_partial_read_of_a_file_over_the_cap_still_allows_an_edit(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    big.write_text("".join(f"entry {n}\n" for n in range(1, 2001)))
    harness = file_harness(tmp_path, limits=Limits(max_file_bytes=1024))
    harness.ok("Read", file_path="big.log", offset=1500, limit=3)
    harness.ok("Edit", file_path="big.log", old_string="entry 1500\n", new_string="entry 1500 (checked)\n")
    assert "entry 1500 (checked)\n" in big.read_text()
    harness.ok("Edit", file_path="big.log", old_string="entry 1501\n", new_string="entry 1501 (checked)\n")


def test_a_file_over_the_cap_that_changed_after_a_partial_read_is_stale(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    big.write_text("".join(f"entry {n}\n" for n in range(1, 2001)))
    harness = file_harness(tmp_path, limits=Limits(max_file_bytes=1024))
    harness.ok("Read", file_path="big.log", offset=1, limit=3)
    with big.open("a") as handle:
        handle.write("entry 2001\n")
    result = harness.call("Edit", file_path="big.log", old_string="entry 1\n", new_string="entry one\n")
    assert result.error_code == "STALE_READ"


def test_read_is_read_only_and_matched_by_path_rules() -> None:
    from jupyter_agent.builtin_tools.files import ReadTool

    tool = ReadTool()
    assert (tool.kind, tool.read_only, tool.annotations.destructive) == ("read", True, False)
    assert (tool.rule_field, tool.rule_kind) == ("file_path", "path")


def test_an_old_format_notebook_is_upgraded_to_cells(tmp_path: Path) -> None:
    v3 = {
        "metadata": {"name": "old"},
        "nbformat": 3,
        "nbformat_minor": 0,
        "worksheets": [
            {
                "cells": [
                    {
                        "cell_type": "code",
                        "input": "print(1)",
                        "language": "python",
                        "outputs": [],
                        "prompt_number": 1,
                    }
                ]
            }
        ],
    }
    (tmp_path / "old.ipynb").write_text(json.dumps(v3))
    result = file_harness(tmp_path).ok("Read", file_path="old.ipynb")
    assert "print(1)" in result.content
    assert 'type="code" execution_count="1"' in result.content


def test_a_read_without_limit_is_a_first_look_and_an_explicit_limit_reads_more(tmp_path: Path) -> None:
    """2,000 lines of 60 characters (~120,000 characters, 30,000 tokens) are not what a first look should cost:
    a default Read stops at whole lines under 40,000 characters and says where to go on."""
    (tmp_path / "big.py").write_text(
        "".join(f"value_{n:04} = compute({n}) + offset  # a typical line\n" for n in range(2000))
    )
    harness = file_harness(tmp_path)
    first = harness.ok("Read", file_path="big.py")
    body, marker = first.content.rsplit("\n\n", 1)
    shown = body.split("\n")
    assert len(first.content) < 41_000
    assert shown[-1].endswith("# a typical line")  # whole lines only
    last = len(shown)
    assert marker == (
        f"[Showing lines 1–{last} of 2000 (output kept under 40000 characters). Use offset={last + 1} to read more.]"
    )
    asked = harness.ok("Read", file_path="big.py", offset=1, limit=1000)
    assert asked.content.count("# a typical line") == 1000  # over 40,000 characters: asked for, so given
    assert len(asked.content) > 50_000
