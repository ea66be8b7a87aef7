"""Undo records past `undo_memory_mb` go to disk, oldest first, and come back byte for byte; `release` (what
`%agent reset` does) moves them all there; the files are this user's only, and a lost one says so."""

from __future__ import annotations

import gc
import os
import stat
from pathlib import Path

import pytest

from jupyter_agent.base.journal import FileChange, RunJournal
from jupyter_agent.base.journal_store import JournalStore, UndoRecordLost


def record_writes(journal: RunJournal, tmp_path: Path, count: int, size: int) -> list[FileChange]:
    changes = [
        FileChange(
            path=tmp_path / f"f{n}.bin",
            before=bytes([n]) * size,
            after=bytes([n + 100]) * size,
            tool="Write",
        )
        for n in range(count)
    ]
    for change in changes:
        journal.record(change)
    return changes


def spilled(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*.bin"))


def test_past_the_cap_the_oldest_records_go_to_disk_and_read_back_exactly(tmp_path: Path) -> None:
    store = JournalStore(cap_bytes=250_000, directory=tmp_path / "undo")
    journal = RunJournal(run_id=1, store=store)
    changes = record_writes(journal, tmp_path, count=5, size=50_000)  # 500 KB kept in all
    assert store.in_memory_bytes <= 250_000
    files = spilled(tmp_path / "undo")
    assert len(files) == 5  # the five oldest of ten records
    assert changes[0].before == bytes([0]) * 50_000 and changes[0].after == bytes([100]) * 50_000
    assert changes[4].before == bytes([4]) * 50_000  # still in memory
    kernel_dir = files[0].parent
    assert stat.S_IMODE(kernel_dir.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)
    assert kernel_dir.name.startswith(f"{os.getpid()}-")


def test_release_moves_every_record_to_disk_and_undo_still_reads_them(tmp_path: Path) -> None:
    store = JournalStore(cap_bytes=10**9, directory=tmp_path / "undo")
    journal = RunJournal(run_id=1, store=store)
    changes = record_writes(journal, tmp_path, count=3, size=10_000)
    assert store.in_memory_bytes == 60_000 and spilled(tmp_path / "undo") == []
    store.release()
    assert store.in_memory_bytes == 0 and len(spilled(tmp_path / "undo")) == 6
    assert [c.before for c in changes] == [bytes([n]) * 10_000 for n in range(3)]


def test_a_record_no_journal_holds_any_more_leaves_memory_and_disk(tmp_path: Path) -> None:
    store = JournalStore(cap_bytes=15_000, directory=tmp_path / "undo")
    journal = RunJournal(run_id=1, store=store)
    record_writes(journal, tmp_path, count=2, size=10_000)
    assert spilled(tmp_path / "undo")
    journal.changes.clear()
    del journal
    gc.collect()
    assert store.in_memory_bytes == 0 and spilled(tmp_path / "undo") == []


def test_a_spilled_record_that_was_removed_says_where_it_was(tmp_path: Path) -> None:
    store = JournalStore(cap_bytes=0, directory=tmp_path / "undo")
    journal = RunJournal(run_id=1, store=store)
    [change] = record_writes(journal, tmp_path, count=1, size=100)
    for file in spilled(tmp_path / "undo"):
        file.unlink()
    with pytest.raises(UndoRecordLost) as caught:
        _ = change.before
    assert "the undo record kept on disk at" in str(caught.value) and "cannot be undone" in str(caught.value)


def test_a_data_dir_that_cannot_be_written_keeps_the_records_in_memory(tmp_path: Path) -> None:
    blocked = tmp_path / "undo"
    blocked.write_text("a file where the directory would go")
    store = JournalStore(cap_bytes=0, directory=blocked)
    journal = RunJournal(run_id=1, store=store)
    [change] = record_writes(journal, tmp_path, count=1, size=100)
    assert store.in_memory_bytes == 200 and change.before == bytes([0]) * 100


def test_a_link_where_the_kernels_directory_would_go_keeps_the_records_in_memory(tmp_path: Path) -> None:
    """Undo records hold file contents: they never go through a link someone planted, wherever it points."""
    base = tmp_path / "undo"
    base.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    from jupyter_agent.base.tempfiles import process_name

    (base / process_name(os.getpid())).symlink_to(elsewhere)
    store = JournalStore(cap_bytes=0, directory=base)
    journal = RunJournal(run_id=1, store=store)
    [change] = record_writes(journal, tmp_path, count=1, size=100)
    assert list(elsewhere.iterdir()) == []
    assert store.in_memory_bytes == 200 and change.before == bytes([0]) * 100
