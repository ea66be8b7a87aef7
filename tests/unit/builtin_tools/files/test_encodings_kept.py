"""Encodings kept: a file is read in the encoding its BOM, its coding declaration, UTF-8 or the fallback says,
and written back in it; a character that encoding cannot hold is a clear error and nothing is written.
Real files from sphinx and black (tests/fixtures/real/README.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from dispatch_harness import file_harness

from jupyter_agent.settings import AgentSettings, SettingError
from jupyter_agent.tools import Sandbox

REAL = Path(__file__).resolve().parents[3] / "fixtures" / "real"


def real(tmp_path: Path, name: str) -> bytes:
    """Copy a real file into the sandbox (Python sources are stored as `.py.txt`, so no linter touches them)."""
    stored = REAL / f"{name}.txt" if name.endswith(".py") else REAL / name
    shutil.copy(stored, tmp_path / name)
    return (tmp_path / name).read_bytes()


def test_an_edit_to_a_file_that_declares_windows_1251_is_written_in_windows_1251(tmp_path: Path) -> None:
    # sphinx's cp_1251_coded.py declares windows-1251 (PEP 263, no BOM); its bytes D0 A5 read as "РҐ" there.
    original = real(tmp_path, "sphinx-cp_1251_coded.py")
    h = file_harness(tmp_path)
    assert 'X="РҐ"' in h.read("sphinx-cp_1251_coded.py").content
    h.ok(
        "Edit",
        file_path="sphinx-cp_1251_coded.py",
        old_string='X="РҐ"',
        new_string='X="РҐ"\nY = "Привет"',
        replace_all=True,
    )
    after = (tmp_path / "sphinx-cp_1251_coded.py").read_bytes()
    assert 'Y = "Привет"'.encode("cp1251") in after
    assert "Привет".encode() not in after
    assert after.replace(b'\nY = "' + "Привет".encode("cp1251") + b'"', b"") == original


def test_a_latin_1_file_without_a_declaration_is_read_and_edited_in_the_fallback_encoding(
    tmp_path: Path,
) -> None:
    original = real(tmp_path, "sphinx-wrongenc.inc")  # Latin-1, read "at first as utf-8" by sphinx
    h = file_harness(tmp_path)
    assert "Max Strauß aß in München eine Leberkässemmel." in h.read("sphinx-wrongenc.inc").content
    h.ok("Edit", file_path="sphinx-wrongenc.inc", old_string="München", new_string="Köln")
    assert (tmp_path / "sphinx-wrongenc.inc").read_bytes() == original.replace(b"M\xfcnchen", b"K\xf6ln")


def test_a_character_the_files_encoding_cannot_hold_is_a_clear_error_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    original = real(tmp_path, "sphinx-wrongenc.inc")
    h = file_harness(tmp_path)
    h.read("sphinx-wrongenc.inc")
    result = h.call(
        "Edit", file_path="sphinx-wrongenc.inc", old_string="München", new_string="Москва → München"
    )
    assert result.error_code == "INVALID_ARGS"
    assert result.content == (
        "INVALID_ARGS: 'sphinx-wrongenc.inc' is written in cp1252 (it has no byte-order mark or coding declaration "
        "and is not UTF-8, so it was read as cp1252 (the fallback_encoding setting)), which cannot hold 'М' "
        "(U+041C) at line 3 of the new text; nothing was written. To fix: use characters cp1252 has; if the file is "
        "in another encoding, set `%config AgentMagics.fallback_encoding = '...'` or add a coding declaration to "
        "its first line"
    )
    assert (tmp_path / "sphinx-wrongenc.inc").read_bytes() == original
    declared = real(tmp_path, "sphinx-cp_1251_coded.py")
    h.read("sphinx-cp_1251_coded.py")
    refused = h.call(
        "Write",
        file_path="sphinx-cp_1251_coded.py",
        content="#!python\n# -*- coding: windows-1251 -*-\nX = '→'\n",
    )
    assert refused.error_code == "INVALID_ARGS"
    assert "which cannot hold '→' (U+2192) at line 3 of the new text" in refused.content
    assert "changing its coding declaration to utf-8 in the same edit" in refused.content
    assert (tmp_path / "sphinx-cp_1251_coded.py").read_bytes() == declared


def test_changing_the_coding_declaration_converts_the_file(tmp_path: Path) -> None:
    original = real(tmp_path, "sphinx-cp_1251_coded.py")
    h = file_harness(tmp_path)
    h.read("sphinx-cp_1251_coded.py")
    h.ok(
        "Edit",
        file_path="sphinx-cp_1251_coded.py",
        old_string="coding: windows-1251",
        new_string="coding: utf-8",
    )
    after = (tmp_path / "sphinx-cp_1251_coded.py").read_bytes()
    text = original.decode("cp1251").replace("windows-1251", "utf-8")
    assert 'X="РҐ"' in text
    assert after == text.encode("utf-8")


def test_a_new_file_with_a_coding_declaration_is_written_in_that_encoding(tmp_path: Path) -> None:
    file_harness(tmp_path).ok(
        "Write", file_path="new.py", content="# -*- coding: latin-1 -*-\nname = 'Zoë'\n"
    )
    assert (tmp_path / "new.py").read_bytes() == b"# -*- coding: latin-1 -*-\nname = 'Zo\xeb'\n"


def test_a_bom_crlf_line_endings_and_tab_indents_are_kept(tmp_path: Path) -> None:
    bom = real(tmp_path, "sphinx-bom.txt")
    crlf = real(tmp_path, "black-east_asian_width_crlf.py")  # CRLF with East Asian characters
    h = file_harness(tmp_path)
    h.read("sphinx-bom.txt")
    h.ok("Edit", file_path="sphinx-bom.txt", old_string='has a UTF-8 "BOM".', new_string="has a UTF-8 “BOM”.")
    assert (tmp_path / "sphinx-bom.txt").read_bytes() == bom.replace(b'"BOM"', "“BOM”".encode())
    h.read("black-east_asian_width_crlf.py")
    h.ok(
        "Edit",
        file_path="black-east_asian_width_crlf.py",
        old_string="# flags: --unstable\n",
        new_string="# flags: --unstable\n# kept\n",
    )
    assert (tmp_path / "black-east_asian_width_crlf.py").read_bytes() == crlf.replace(
        b"# flags: --unstable\r\n", b"# flags: --unstable\r\n# kept\r\n", 1
    )
    tabs = real(tmp_path, "black-docstring_tabs.py")
    h.read("black-docstring_tabs.py")
    h.ok(
        "Edit",
        file_path="black-docstring_tabs.py",
        old_string="\t\tTesting again",
        new_string="\t\tTesting once more",
    )
    assert (tmp_path / "black-docstring_tabs.py").read_bytes() == tabs.replace(
        b"\t\tTesting again", b"\t\tTesting once more"
    )


def test_the_fallback_encoding_setting_reads_undeclared_cyrillic(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_bytes("Привет, мир\n".encode("cp1251"))
    h = file_harness(tmp_path)
    h.ctx.sandbox = Sandbox.at(tmp_path, fallback_encoding="cp1251")
    assert "Привет, мир" in h.read("notes.txt").content
    h.ok("Edit", file_path="notes.txt", old_string="мир", new_string="всем")
    assert (tmp_path / "notes.txt").read_bytes() == "Привет, всем\n".encode("cp1251")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        pytest.param("klingon", "fallback_encoding 'klingon' is not an encoding Python knows", id="unknown"),
        pytest.param("utf-16", "fallback_encoding 'utf-16' is not an 8-bit encoding", id="not 8-bit"),
    ],
)
def test_a_fallback_encoding_that_cannot_work_is_refused(value: str, message: str) -> None:
    settings = AgentSettings()
    with pytest.raises(SettingError, match=message):
        settings.fallback_encoding = value
    assert settings.fallback_encoding == "cp1252"


def test_old_string_copied_with_a_replacement_character_gets_a_hint(tmp_path: Path) -> None:
    (tmp_path / "mixed.py").write_bytes("# crème brûlée\n# caf".encode() + b"\xe9 au lait\n")
    h = file_harness(tmp_path)
    assert "# caf\ufffd au lait" in h.read("mixed.py").content
    result = h.call("Edit", file_path="mixed.py", old_string="# caf\ufffd au lait", new_string="# coffee")
    assert result.error_code == "TEXT_NOT_FOUND"
    assert "Read shows as '\ufffd'; old_string cannot match them: start or end old_string next to them" in (
        result.content
    )
    h.ok("Edit", file_path="mixed.py", old_string=" au lait", new_string=" noir")
    assert (tmp_path / "mixed.py").read_bytes() == "# crème brûlée\n# caf".encode() + b"\xe9 noir\n"


@pytest.mark.parametrize("tool", ["Edit", "MultiEdit"])
def test_an_old_string_not_found_in_a_file_with_undefined_bytes_gets_the_nearest_match(
    tmp_path: Path, tool: str
) -> None:
    """A Latin-1 middle dot (0xb7) among UTF-8 text, as in sphinx's texinputs/LatinRules.xdy: the not-found
    message shows the closest lines (the byte as U+FFFD), never a Python encoding failure."""
    original = b'(merge-rule "\xb7" "~e" :string)\n(merge-rule "\xc3\xa9\xc3\xa8" "e" :string)\n' * 3
    (tmp_path / "LatinRules.xdy").write_bytes(original)
    h = file_harness(tmp_path)
    h.read("LatinRules.xdy")
    edit = {"old_string": '(merge-rule "x" "~e" :strin)', "new_string": "(gone)"}
    inputs = {"file_path": "LatinRules.xdy", **(edit if tool == "Edit" else {"edits": [edit]})}

    result = h.call(tool, **inputs)

    text = result.content
    assert "old_string was not found in 'LatinRules.xdy'" in text, text
    assert "The closest text is at" in text and '(merge-rule "\ufffd" "~e" :string)' in text, text
    text.encode("utf-8")  # what goes to the model is text (a surrogate here failed the request)
    assert (tmp_path / "LatinRules.xdy").read_bytes() == original
