"""Which first blocks count as binary (Read refuses to show them), and how long output is cut for the model."""

from __future__ import annotations

import pytest

from jupyter_agent.base.sandbox import looks_binary
from jupyter_agent.masking import cap_text

ANSI_LOG = b"\x1b[1m\x1b[32mok\x1b[0m step\n"  # coloured terminal output: a fifth of it is ESC bytes


@pytest.mark.parametrize(
    "sample",
    [
        pytest.param(b"", id="an empty file"),
        pytest.param("naïve café ✓\n".encode(), id="utf-8 text"),
        pytest.param(ANSI_LOG * 40, id="utf-8 full of colour escapes"),
        pytest.param(ANSI_LOG * 40 + "✓".encode()[:2], id="a block cut inside a multi-byte character"),
        pytest.param(b"caf\xe9\r\n" + b"a\tb\tc\r\n" * 30, id="latin-1 tab-separated values, CRLF"),
        pytest.param(b"caf\xe9\n" + b"\f\v" * 30, id="latin-1 with form feeds and vertical tabs"),
        pytest.param(b"caf\xe9 " + b"word " * 60, id="latin-1 prose with spaces"),
        pytest.param(b"caf\xe9" + b"\x1b" * 10 + b"x" * 86, id="latin-1, exactly one control byte in ten"),
        pytest.param(b"caf\xe9" + b"\x1b" * 6 + b"x" * 90, id="latin-1, a few control bytes"),
    ],
)
def test_text_is_not_binary(sample: bytes) -> None:
    assert not looks_binary(sample)


@pytest.mark.parametrize(
    "sample",
    [
        pytest.param(b"abc\x00def", id="a NUL byte"),
        pytest.param(b"\x00", id="only a NUL byte"),
        pytest.param(b"\x89PNG\r\n\x1a\n" + bytes(range(1, 9)) * 20 + b"\xff\xfe", id="control bytes 1-8"),
        pytest.param(b"\x0e" * 20 + b"\xff" + b"x" * 70, id="shift-out bytes (14)"),
        pytest.param(b"\x1f" * 20 + b"\xff" + b"x" * 70, id="unit separators (31)"),
        pytest.param(b"\xff" + b"\x1b" * 11 + b"x" * 88, id="just over one control byte in ten"),
    ],
)
def test_binary_is_binary(sample: bytes) -> None:
    assert looks_binary(sample)


def test_long_output_keeps_the_head_and_the_tail_and_says_what_was_cut() -> None:
    lines = [f"line {n:04d}\n" for n in range(1000)]  # 10 characters each
    text = "".join(lines)
    capped = cap_text(text, 1000)
    assert capped == (
        "".join(lines[:60])
        + "\n… [9000 characters (900 lines) cut: output over 1000 characters] …\n"
        + "".join(lines[960:])
    )


def test_output_exactly_at_the_cap_is_kept_whole() -> None:
    text = "x" * 999 + "\n"
    assert cap_text(text, 1000) == text
    assert cap_text(text + "y", 1000) != text + "y"
