"""unified_diff: the text the UI colours and the +/− counts cards and summaries show."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_agent.base.errors import ToolError
from jupyter_agent.base.stopping import StopSignal, run_context
from jupyter_agent.builtin_tools.files import unified_diff

CASES: list[tuple[str, str, str, str, int, int]] = [
    ("nothing changed gives an empty diff", "a\nb\n", "a\nb\n", "", 0, 0),
    ("a new file is all additions", "", "x\ny\n", "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n", 2, 0),
    ("a deleted body is all removals", "x\n", "", "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-x\n", 0, 1),
    (
        "a changed line is one removal and one addition",
        "a\nb\nc\n",
        "a\nB\nc\n",
        "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
        1,
        1,
    ),
    (
        "a missing final newline is marked as git does",
        "a\nb",
        "a\nb\n",
        "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
        1,
        1,
    ),
    ("CRLF and LF versions of a text are the same", "a\r\nb\r\n", "a\nb\n", "", 0, 0),
    (
        "lines that look like headers are still counted",
        "x\n",
        "x\n++y\n--z\n",
        "--- a/f\n+++ b/f\n@@ -1 +1,3 @@\n x\n+++y\n+--z\n",
        2,
        0,
    ),
]


@pytest.mark.parametrize(
    ("before", "after", "text", "added", "removed"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_unified_diff(before: str, after: str, text: str, added: int, removed: int) -> None:
    diff = unified_diff(before, after, "f")
    assert (diff.text, diff.added, diff.removed) == (text, added, removed)


@pytest.mark.parametrize(
    ("added", "removed", "counts"), [(3, 1, "+3 −1"), (12, 0, "+12"), (0, 4, "−4"), (0, 0, "no changes")]
)
def test_counts_read_like_a_card(added: int, removed: int, counts: str) -> None:
    before = "".join(f"old {n}\n" for n in range(removed))
    after = "".join(f"new {n}\n" for n in range(added))
    assert unified_diff(before, after, "f").counts == counts


def test_a_long_diff_keeps_its_head_and_exact_counts() -> None:
    after = "".join(f"line {n}\n" for n in range(10_000))
    diff = unified_diff("", after, "big.txt", max_chars=1000)
    assert diff.added == 10_000
    assert len(diff.text) < 1100
    assert diff.text.startswith("--- a/big.txt\n+++ b/big.txt\n@@ -0,0 +1,10000 @@\n+line 0\n")
    assert diff.text.endswith("… [diff cut: it is longer than shown]\n")


def apply_hunks(before: str, diff: str) -> str:
    """Apply a unified diff (as `patch` would, with no fuzz) to get the text after it."""
    old = before.splitlines(keepends=True)
    out: list[str] = []
    at = 0
    for line in diff.splitlines(keepends=True)[2:]:
        if line.startswith("@@"):
            start = int(line.split()[1].lstrip("-").split(",")[0])
            length = line.split()[1].split(",")[1] if "," in line.split()[1] else "1"
            first = start - 1 if length != "0" else start
            out += old[at:first]
            at = first
        elif line.startswith((" ", "-")):
            assert old[at] == line[1:], (old[at], line)
            at += 1
            if line.startswith(" "):
                out.append(line[1:])
        elif line.startswith("+"):
            out.append(line[1:])
    return "".join(out + old[at:])


alphabet = st.sampled_from(["a\n", "b\n", "c\n", "def f():\n", "    return 1\n", "\n", "x = 1\n"])


@given(st.lists(alphabet, max_size=60), st.lists(alphabet, max_size=60))
@settings(max_examples=300, deadline=None)
def test_the_diff_applied_to_the_old_text_gives_the_new_text(old: list[str], new: list[str]) -> None:
    before, after = "".join(old), "".join(new)
    diff = unified_diff(before, after, "f", context=2)
    assert apply_hunks(before, diff.text) == after
    assert diff.removed - diff.added == len(old) - len(new)


def test_every_other_line_changed_in_a_large_file_is_diffed_exactly() -> None:
    # difflib alone took 141 s on this (40,000 lines, 1.6 MB); unique unchanged lines anchor the match.
    lines = [f"row {i}: {'x' * 30}\n" for i in range(40_000)]
    changed = [line if i % 2 else "changed " + line for i, line in enumerate(lines)]
    diff = unified_diff("".join(lines), "".join(changed), "big.txt")
    assert (diff.added, diff.removed) == (20_000, 20_000)
    assert diff.text.startswith("--- a/big.txt\n+++ b/big.txt\n@@ -1,40000 +1,40000 @@\n-row 0:")


def test_a_long_repetitive_gap_is_shown_as_replaced_rather_than_matched_for_ever() -> None:
    before = "".join("a\n" if i % 2 else "b\n" for i in range(3000))
    after = "".join("a\n" if i % 2 else "c\n" for i in range(3000))
    diff = unified_diff(before, after, "f")
    assert apply_hunks(before, diff.text) == after
    assert diff.removed == diff.added and 1500 <= diff.added <= 3000


def test_a_stopped_run_stops_diffing() -> None:
    signal = StopSignal()
    signal.request()
    context = run_context(signal)
    with pytest.raises(ToolError) as stopped:
        context.run(unified_diff, "a\nb\nc\n", "a\nB\nc\n", "f")
    assert stopped.value.code == "INTERRUPTED"
