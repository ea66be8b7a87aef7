"""What code printed comes back with one cut, between lines, that fits the cap and says how to see the rest."""

from __future__ import annotations

from jupyter_agent.builtin_tools.kernel.output_log import OutputLog


def test_a_long_print_is_cut_once_between_lines_within_the_cap() -> None:
    log = OutputLog(max_chars=2_000, max_image_bytes=0)
    for n in range(5_000):
        log.write(f"row {n} value {n * 3}\n")
    text = log.text()
    assert len(text) <= 2_000
    lines = text.splitlines()
    marked = [line for line in lines if "cut here" in line]
    assert len(marked) == 1 and "to see them" in marked[0]
    assert lines[0] == "row 0 value 0" and lines[-1] == "row 4999 value 14997"
    kept = [line for line in lines if line not in marked]
    # no line cut in its middle
    assert all(line.startswith("row ") and len(line.split()) == 4 for line in kept)
    assert f"[{5_000 - len(kept)} lines" in marked[0]


def test_output_under_the_cap_is_kept_whole() -> None:
    log = OutputLog(max_chars=2_000, max_image_bytes=0)
    log.write("a\nb\n")
    assert log.text() == "a\nb\n"
