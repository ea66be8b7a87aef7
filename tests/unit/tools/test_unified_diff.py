"""unified_diff: the text the UI colours and the +/− counts cards and summaries show."""

from __future__ import annotations

import pytest

from jupyter_agent.tools.files import unified_diff

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
