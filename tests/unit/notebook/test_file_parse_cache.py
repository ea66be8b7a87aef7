"""A notebook file is parsed once per change, and a write keeps every untouched cell's bytes.

The cache must never hand out cells a file no longer holds: not after another program wrote it, not when the
write kept the size and landed within the file system's timestamp granularity (simulated here with one-second
timestamps, as FAT, HFS+ and some network file systems keep them)."""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from asyncio import run
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from notebook_testkit import assert_valid, write_notebook

from jupyter_agent.notebook import file_backend, file_cache
from jupyter_agent.notebook.file_backend import FileNotebook, load_parsed, serialize
from jupyter_agent.notebook.file_cache import FILES
from jupyter_agent.notebook.ops import Delete, GetCells, Insert, Op, Replace, SetOutputs, SetType, raise_for

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CANONICAL = [  # files laid out exactly as their layout writes them (what a splice must reproduce byte for byte)
    "notebooks/nbformat-test4.5.ipynb",
    "notebooks/colab-holiday-shopping.ipynb",
    "real/nbconvert-notebook4_jpeg.ipynb",
]


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    FILES.clear()
    yield
    FILES.clear()


def sources(path: Path) -> list[str]:
    return [cell.source for cell in run(FileNotebook(path).cells())]


def apply(path: Path, *ops: Op) -> None:
    for result in run(FileNotebook(path).apply(list(ops))):
        raise_for(result)


def test_reading_twice_parses_once_and_a_change_by_another_program_is_seen(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "a.ipynb")
    before = FILES.parses
    assert sources(path)[0] == "x = 0\nprint(x)"
    assert sources(path)[0] == "x = 0\nprint(x)"
    assert FILES.parses == before + 1
    nb = nbformat.read(path, as_version=4)
    nb.cells[0].source = "x = 100\nprint(x)"
    nbformat.write(nb, path)  # another program (JupyterLab saving): a new size, a new stamp
    assert sources(path)[0] == "x = 100\nprint(x)"


def coarse_stamp(st: os.stat_result) -> file_cache.Stamp:
    """A stamp as on a file system with one-second timestamps: a change within the second keeps it."""
    second = 10**9
    return file_cache.Stamp(
        st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns // second * second, st.st_ctime_ns // second * second
    )


def test_a_same_size_change_within_the_timestamps_granularity_is_never_read_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(file_cache.Stamp, "of", staticmethod(coarse_stamp))
    path = write_notebook(tmp_path / "a.ipynb")
    assert sources(path)[0] == "x = 0\nprint(x)"
    for n in range(1, 6):  # same size each time, well within one second
        text = path.read_text().replace(f'"x = {n - 1}\\n"', f'"x = {n}\\n"')
        with open(path, "r+", encoding="utf-8") as handle:  # in place: same inode, same size
            handle.write(text)
        assert sources(path)[0] == f"x = {n}\nprint(x)"


def test_a_same_size_write_by_another_program_as_ours_lands_is_seen_a_minute_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between our rename and our look at the file's stamp, another program rewrites it in place, in the same
    second and at the same size: the stamp we keep is theirs, so our bytes are checked before they are trusted."""
    monkeypatch.setattr(file_cache.Stamp, "of", staticmethod(coarse_stamp))
    path = write_notebook(tmp_path / "a.ipynb")
    real_write = file_backend.atomic_write

    def ours_then_theirs(target: Path, data: bytes, **options: Any) -> None:
        real_write(target, data, **options)
        with open(target, "r+b") as handle:
            handle.write(data.replace(b'"y = 1"', b'"y = 2"'))

    monkeypatch.setattr(file_backend, "atomic_write", ours_then_theirs)
    apply(path, Replace(id="c1", source="y = 1", expect=None))
    now = time.time_ns()
    monkeypatch.setattr(FILES, "clock", lambda: now + 60 * 10**9)
    assert sources(path)[1] == "y = 2"


def test_a_one_cell_edit_leaves_every_other_byte_of_an_unusual_layout_alone(tmp_path: Path) -> None:
    """Three-space indents, and one cell written with its own spacing: an edit of another cell keeps both."""
    nb = json.loads(write_notebook(tmp_path / "base.ipynb").read_text())
    text = json.dumps(nb, indent=3, sort_keys=True)
    odd = json.dumps(nb["cells"][0], indent=3, sort_keys=True).replace("\n", "\n      ")
    text = text.replace(odd, odd.replace('"cell_type": "code"', '"cell_type" :  "code"'))
    path = tmp_path / "odd.ipynb"
    path.write_text(text + "\n")
    original = path.read_bytes()
    apply(path, Replace(id="c2", source="x = 22", expect=None))
    written = path.read_bytes()
    assert b'"cell_type" :  "code"' in written  # the untouched cell, byte for byte
    changed = original.replace(b'"x = 2\\n",\n            "print(x)"', b'"x = 22"')
    assert changed != original
    assert written == changed
    assert_valid(path)


def ops_for(path: Path, rng: random.Random) -> list[Op]:
    cells = run(FileNotebook(path).cells())
    cell = rng.choice(cells)
    kind = rng.choice(["replace", "insert", "delete", "type", "outputs"] if len(cells) > 2 else ["insert"])
    if kind == "replace":
        return [Replace(id=cell.id, source=f"edited {rng.random()}\nline two", expect=None)]
    if kind == "insert":
        return [Insert(after_id=rng.choice([None, cell.id]), cell_type="code", source="new = 1")]
    if kind == "delete":
        return [Delete(id=cell.id, expect=None)]
    if kind == "type":
        return [
            SetType(id=cell.id, cell_type="markdown" if cell.cell_type == "code" else "code", expect=None)
        ]
    if cell.cell_type != "code":
        return [GetCells()]
    out = {"output_type": "stream", "name": "stdout", "text": "out\nput\n"}
    return [SetOutputs(id=cell.id, outputs=(out,), execution_count=7)]


@pytest.mark.parametrize("source", CANONICAL, ids=[Path(n).stem for n in CANONICAL])
def test_spliced_writes_are_what_serializing_the_whole_notebook_gives(tmp_path: Path, source: str) -> None:
    path = tmp_path / Path(source).name
    shutil.copy(FIXTURES / source, path)
    rng = random.Random(source)
    for step in range(25):
        apply(path, *ops_for(path, rng))
        FILES.clear()
        data = path.read_bytes()
        parsed = load_parsed(data, path.name)
        assert serialize(parsed.nb, parsed.layout) == data, f"step {step}"
    assert_valid(path)


def test_the_journal_of_a_big_notebook_edit_keeps_the_change_not_the_file(tmp_path: Path) -> None:
    from jupyter_agent.base.journal import RunJournal, set_run_journal
    from jupyter_agent.base.journal_store import JournalStore

    path = write_notebook(tmp_path / "big.ipynb", cells=2000)
    original = path.read_bytes()
    journal = RunJournal(run_id=1, store=JournalStore())

    async def edit() -> None:
        set_run_journal(journal)
        for n in range(3):
            await FileNotebook(path).apply([Replace(id="c1500", source=f"x = {n}", expect=None)])
            await FileNotebook(path).apply([Replace(id="c10", source=f"y = {n}", expect=None)])

    run(edit())
    write = journal.notebook_files[path]
    assert write.restore is not None and write.restore.size < 2_000  # two cells, not the bytes between them
    assert journal.store.in_memory_bytes < 2_000
    assert write.before(path.read_bytes()) == original
