"""Undo records past `undo_memory_mb` go to disk, oldest first, and come back byte for byte; `release` (what
`%agent reset` does) moves them all there; the files are this user's only, and a lost one says so."""

from __future__ import annotations

import gc
import os
import stat
import time
from pathlib import Path

import pytest

from jupyter_agent.base.journal import FileChange, RunJournal
from jupyter_agent.base.journal_store import JournalStore, UndoRecordChanged, UndoRecordLost


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


def one_spilled_record(tmp_path: Path) -> tuple[RunJournal, FileChange, list[Path]]:
    """A write whose two records are on disk; the journal is returned too (a record no journal holds goes)."""
    store = JournalStore(cap_bytes=0, directory=tmp_path / "undo")
    journal = RunJournal(run_id=1, store=store)
    [change] = record_writes(journal, tmp_path, count=1, size=100)
    return journal, change, spilled(tmp_path / "undo")


def test_a_record_changed_on_disk_with_the_same_size_is_refused_by_its_digest(tmp_path: Path) -> None:
    _journal, change, files = one_spilled_record(tmp_path)
    for file in files:
        file.write_bytes(b"\xff" * 100)
    with pytest.raises(UndoRecordChanged) as caught:
        _ = change.before
    assert "changed since it was written (its digest differs)" in str(caught.value)
    assert "it was not used" in str(caught.value) and "nothing was written from it" in str(caught.value)


def test_a_record_cut_or_grown_on_disk_is_refused_by_its_size(tmp_path: Path) -> None:
    _journal, change, files = one_spilled_record(tmp_path)
    for file in files:
        file.write_bytes(file.read_bytes()[:40])
    with pytest.raises(UndoRecordChanged, match="has 40 bytes, not the 100 written"):
        _ = change.after


def test_a_record_replaced_by_a_link_is_refused_without_reading_through_it(tmp_path: Path) -> None:
    _journal, change, files = one_spilled_record(tmp_path)
    planted = tmp_path / "planted"
    planted.write_bytes(bytes([0]) * 100)  # even the very bytes that were kept
    for file in files:
        file.unlink()
        file.symlink_to(planted)
    with pytest.raises(UndoRecordChanged, match="was replaced by a link"):
        _ = change.before


def test_undo_of_a_write_whose_record_was_tampered_with_skips_it_and_writes_nothing(tmp_path: Path) -> None:
    import asyncio

    from jupyter_agent.base.sandbox import Sandbox
    from jupyter_agent.undo.files import undo_file_change

    _journal, change, files = one_spilled_record(tmp_path)
    change.path.write_bytes(change.after)  # the file as the agent left it
    for file in files:
        file.write_bytes(file.read_bytes()[::-1] + b"!")
    step = asyncio.run(undo_file_change(change, Sandbox.at(tmp_path)))
    assert not step.done
    assert (
        step.text.startswith("skipped f0.bin: the undo record kept on disk at") and "not the 100" in step.text
    )
    assert change.path.read_bytes() == bytes([100]) * 100  # untouched


def test_a_link_where_the_base_folder_would_be_keeps_the_records_in_memory(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    base = tmp_path / "undo"
    base.symlink_to(elsewhere)
    store = JournalStore(cap_bytes=0, directory=base)
    journal = RunJournal(run_id=1, store=store)
    [change] = record_writes(journal, tmp_path, count=1, size=100)
    assert list(elsewhere.iterdir()) == []
    assert store.in_memory_bytes == 200 and change.before == bytes([0]) * 100


def test_sweep_removes_what_killed_kernels_left_and_old_strays_and_keeps_the_rest(tmp_path: Path) -> None:
    from jupyter_agent.base.journal_store import SWEEP_AGE_S
    from jupyter_agent.base.tempfiles import process_name

    base = tmp_path / "undo"
    base.mkdir(mode=0o700)
    gone = base / "999999999-12345"
    running = base / process_name(os.getppid())  # a kernel that runs: its records stay
    old_stray, new_stray = base / "notes", base / "fresh"
    for directory in (gone, running, old_stray, new_stray):
        directory.mkdir()
        (directory / "0.bin").write_bytes(b"kept")
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep.txt").write_text("not the store's")
    old_link = base / "old-link"
    old_link.symlink_to(target)
    week_ago = time.time() - SWEEP_AGE_S - 60
    for old in (old_stray, old_link):
        os.utime(old, (week_ago, week_ago), follow_symlinks=False)
    JournalStore(directory=base).sweep()
    assert sorted(p.name for p in base.iterdir()) == sorted([running.name, new_stray.name])
    assert (target / "keep.txt").read_text() == "not the store's"  # the link went, not what it led to


def test_sweep_leaves_a_base_folder_that_is_a_link_alone(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "999999999-12345").mkdir(parents=True)
    (tmp_path / "undo").symlink_to(elsewhere)
    JournalStore(directory=tmp_path / "undo").sweep()
    assert (elsewhere / "999999999-12345").is_dir()
