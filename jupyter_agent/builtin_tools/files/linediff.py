"""Which lines two texts share, in bounded time: patience anchoring first, difflib only on small gaps.

`difflib.SequenceMatcher` on whole files is quadratic in bad cases: a 1.6 MB file where every other line
changed took 141 s, and a Write's diff had to be computed before it could be approved or written. Here:

1. the common head and tail are matched directly;
2. lines that occur exactly once on each side anchor the match (the longest run of them in the same order,
   as git's patience diff does); the gaps between anchors are matched the same way, one at a time;
3. a gap without unique lines goes to difflib: exactly when it is small (`EXACT_CELLS` line pairs: difflib
   without its junk heuristic is cubic on repetitive lines — 800 alternating lines took 4 s), with the
   heuristic (very frequent lines do not anchor) up to `DIFFLIB_CELLS`, and it is shown as replaced beyond —
   a diff that may be longer than the shortest one, never a wrong one.

Between gaps it calls `check()`, so a stopped run does not keep a thread busy diffing.
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Callable, Sequence

#: Largest gap (old lines × new lines) difflib matches exactly, and with its junk heuristic; bigger ones are
#: shown as replaced.
EXACT_CELLS = 40_000
DIFFLIB_CELLS = 4_000_000

Opcode = tuple[str, int, int, int, int]
Block = tuple[int, int, int]


def _unique_pairs(
    a: Sequence[str], b: Sequence[str], la: int, ha: int, lb: int, hb: int
) -> list[tuple[int, int]]:
    """(i, j) for every line that occurs exactly once in a[la:ha] and once in b[lb:hb], in order of i."""
    seen_a: dict[str, int] = {}
    for i in range(la, ha):
        seen_a[a[i]] = -1 if a[i] in seen_a else i
    seen_b: dict[str, int] = {}
    for j in range(lb, hb):
        line = b[j]
        if seen_a.get(line, -1) >= 0:
            seen_b[line] = -1 if line in seen_b else j
    pairs = [(seen_a[line], j) for line, j in seen_b.items() if j >= 0]
    pairs.sort()
    return pairs


def _longest_in_order(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of `pairs` (sorted by i) whose j also increase (patience sorting)."""
    tails: list[int] = []  # j of the smallest tail of each length
    tail_at: list[int] = []  # index into pairs of that tail
    back: list[int] = []
    for index, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_at.append(index)
        else:
            tails[k] = j
            tail_at[k] = index
        back.append(tail_at[k - 1] if k else -1)
    chain: list[tuple[int, int]] = []
    at = tail_at[-1] if tail_at else -1
    while at >= 0:
        chain.append(pairs[at])
        at = back[at]
    chain.reverse()
    return chain


def matching_blocks(
    a: Sequence[str], b: Sequence[str], check: Callable[[], None] = lambda: None
) -> list[Block]:
    """Matching (i, j, size) blocks of lines, ascending, ending with the (len(a), len(b), 0) sentinel."""
    found: list[Block] = []
    stack = [(0, len(a), 0, len(b))]
    while stack:
        check()
        la, ha, lb, hb = stack.pop()
        while la < ha and lb < hb and a[la] == b[lb]:
            found.append((la, lb, 1))
            la, lb = la + 1, lb + 1
        while la < ha and lb < hb and a[ha - 1] == b[hb - 1]:
            ha, hb = ha - 1, hb - 1
            found.append((ha, hb, 1))
        if la == ha or lb == hb:
            continue
        anchors = _longest_in_order(_unique_pairs(a, b, la, ha, lb, hb))
        if not anchors:
            cells = (ha - la) * (hb - lb)
            if cells <= DIFFLIB_CELLS:
                matcher = difflib.SequenceMatcher(None, a[la:ha], b[lb:hb], autojunk=cells > EXACT_CELLS)
                found += [(la + i, lb + j, n) for i, j, n in matcher.get_matching_blocks() if n]
            continue
        start_a, start_b = la, lb
        for i, j in anchors:
            stack.append((start_a, i, start_b, j))
            found.append((i, j, 1))
            start_a, start_b = i + 1, j + 1
        stack.append((start_a, ha, start_b, hb))
    return [*_merged(sorted(found)), (len(a), len(b), 0)]


def _merged(blocks: list[Block]) -> list[Block]:
    merged: list[Block] = []
    for i, j, n in blocks:
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            pi, pj, pn = merged[-1]
            merged[-1] = (pi, pj, pn + n)
        else:
            merged.append((i, j, n))
    return merged


def opcodes(blocks: list[Block]) -> list[Opcode]:
    """difflib-style opcodes ("equal", "replace", "delete", "insert") from matching blocks."""
    codes: list[Opcode] = []
    i = j = 0
    for ai, bj, size in blocks:
        tag = "replace" if i < ai and j < bj else "delete" if i < ai else "insert" if j < bj else ""
        if tag:
            codes.append((tag, i, ai, j, bj))
        i, j = ai + size, bj + size
        if size:
            codes.append(("equal", ai, i, bj, j))
    return codes or [("equal", 0, 0, 0, 0)]


def grouped(codes: list[Opcode], context: int) -> list[list[Opcode]]:
    """Hunks with `context` lines around each change (difflib's `get_grouped_opcodes`, on our opcodes)."""
    codes = list(codes)
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)
    span = context + context
    groups: list[list[Opcode]] = []
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > span:
            group.append((tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)))
            groups.append(group)
            group = []
            i1, j1 = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups
