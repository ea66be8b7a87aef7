"""The kernel journal around code run in a namespace (`CodeRun` with a `KernelWatch`), and undo of what it kept
(`undo.variables`): in-process, fast, every case the kernel tests do not reach.

The kernel tests (tests/kernel/test_kernel_journal.py) run the same through a real ipykernel and `%agent undo`.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from jupyter_agent.base.journal import RunJournal
from jupyter_agent.base.kernel_journal import KernelStep, KernelUndoStore, Pin, human_bytes
from jupyter_agent.base.sandbox import Sandbox
from jupyter_agent.builtin_tools.kernel.execution import CodeRun
from jupyter_agent.builtin_tools.kernel.journal import capture
from jupyter_agent.builtin_tools.kernel.journal.capture import KernelWatch
from jupyter_agent.builtin_tools.kernel.journal.notes import result_note
from jupyter_agent.tools.context import ToolContext, ToolServices
from jupyter_agent.undo import review
from jupyter_agent.undo.variables import net_variable_changes, report_lines, undo_variable

MB = 1024 * 1024


class Journaled:
    """One namespace, its run journal and the session's store: run code as RunCode would, then undo it."""

    def __init__(self, budget: int = 64 * MB, **names: Any) -> None:
        self.namespace: dict[str, Any] = {"__name__": "__main__", **names}
        self.store = KernelUndoStore()
        self.journal = RunJournal(run_id=1)
        self.budget = budget

    def run(self, code: str) -> KernelStep | None:
        watch = KernelWatch(
            namespace=self.namespace,
            store=self.store,
            budget=self.budget,
            journal=self.journal,
            tool="RunCode",
            label="RunCode",
        )
        outcome = CodeRun(
            code, self.namespace, shell=None, timeout=30, max_chars=10_000, max_image_bytes=0, watch=watch
        ).run()
        assert watch.failure == ""
        self.outcome = outcome
        return watch.step

    def undo(self) -> list[str]:
        results = [undo_variable(c, self.namespace, self.store) for c in net_variable_changes(self.journal)]
        return report_lines(results)


def test_a_copy_of_an_object_the_code_did_not_change_is_let_go_at_once() -> None:
    box = Journaled(rows=[1, 2, 3])
    step = box.run("summary = list(rows); rows.count(1); process = lambda r: r\nprocess(rows)")
    assert step is not None and [c.name for c in step.changes] == ["process", "summary"]  # rows: unchanged
    assert box.store.held_bytes == 0


def test_two_names_for_one_object_come_back_as_one_object() -> None:
    shared = [1, 2]
    box = Journaled(a=shared, b=shared)
    step = box.run("a.append(3)")
    assert step is not None and sorted(c.name for c in step.changes) == ["a", "b"]
    assert box.undo() == ["restored 2 variables (a, b)"]
    assert box.namespace["a"] == [1, 2] and box.namespace["a"] is box.namespace["b"]


def test_what_the_code_does_not_name_is_still_seen_when_it_reaches_further() -> None:
    box = Journaled(x=1, y=[0], z="kept", w=(1, 2))
    box.run("def bump():\n    global x\n    x = 2")
    box.run("bump()")  # the function was defined before: this code names only `bump`
    box.run("globals()['y'] = 'replaced'")
    box.run("class Tracker:\n    def reset(self):\n        global w\n        w = None\ntracker = Tracker()")
    box.run("tracker.reset()")  # a method of a class defined in the notebook
    box.run("exec('del z')")  # a name deleted where the code does not say it
    assert (box.namespace["x"], box.namespace["y"], box.namespace["w"]) == (2, "replaced", None)
    assert "z" not in box.namespace
    assert box.undo() == ["restored 4 variables (w, x, y, z), removed 3 (bump, Tracker, tracker)"]
    assert (box.namespace["x"], box.namespace["y"], box.namespace["z"], box.namespace["w"]) == (
        1,
        [0],
        "kept",
        (1, 2),
    )


def test_a_name_deleted_and_bound_again_is_compared_like_any_other() -> None:
    box = Journaled(first=[1], second={"k": 1})
    box.run("del first\nfirst = 'again'\nsecond['k'] = 2")
    assert box.undo() == ["restored 2 variables (first, second)"]
    assert box.namespace["first"] == [1] and box.namespace["second"] == {"k": 1}


def test_an_object_rebound_after_the_code_changed_it_comes_back_as_it_was_before() -> None:
    box = Journaled(items=[1, 2])
    box.run("items.append(3); items = 'gone'")
    box.undo()
    assert box.namespace["items"] == [1, 2]


def test_pandas_and_numpy_objects_are_copied_their_own_way_and_come_back_equal() -> None:
    frame = pd.DataFrame({"a": [1.0, float("nan"), 3.0], "b": ["x", "y", "z"]}, index=["r1", "r2", "r3"])
    series = pd.Series([1, 2, 3], name="s")
    box = Journaled(df=frame.copy(), s=series.copy(), arr=np.arange(6).reshape(2, 3))
    box.run("df.loc['r1', 'a'] = 100; df['c'] = 1; s.name = 'renamed'; arr[:, 0] = -1")
    assert box.undo() == ["restored 3 variables (arr, df, s)"]
    pd.testing.assert_frame_equal(box.namespace["df"], frame)
    pd.testing.assert_series_equal(box.namespace["s"], series)
    assert box.namespace["arr"].tolist() == [[0, 1, 2], [3, 4, 5]]


def test_the_budget_drops_the_oldest_copies_first_and_undo_says_so() -> None:
    two = MB // 8 * 2  # 2 MB of float64
    box = Journaled(budget=5 * MB, a=np.zeros(two), b=np.zeros(two), c=np.zeros(two))
    box.run("a[:] = 1")
    oldest = box.journal.kernel[-1].changes[0]
    box.run("b[:] = 2")
    box.run("c[:] = 3")  # a third copy fits only once the oldest is dropped
    assert box.store.held_bytes == 4 * MB
    assert oldest.before.lost == (
        "its 2.0 MB copy was dropped to stay within the 5.0 MB kernel_undo_budget_mb; newer copies took its place"
    )
    assert box.undo() == [
        "restored 2 variables (b, c); not restorable: a (its 2.0 MB copy was dropped to stay within the 5.0 MB "
        "kernel_undo_budget_mb; newer copies took its place)"
    ]
    assert (box.namespace["a"].sum(), box.namespace["b"].sum(), box.namespace["c"].sum()) == (two, 0, 0)
    assert box.store.held_bytes == 0  # what was restored no longer counts


def test_an_object_larger_than_the_budget_is_not_copied_and_said_before_and_after() -> None:
    box = Journaled(budget=1 * MB, big=np.ones(300_000))
    step = box.run("big *= 2")
    assert result_note(step) == (
        "\n[kernel variables this code changed — not restorable: big (may have changed in place; 2.3 MB, more "
        "than the 1.0 MB kernel_undo_budget_mb allows)]"
    )
    assert box.store.held_bytes == 0


@pytest.mark.parametrize(
    ("value", "why"),
    [
        (lambda: (i for i in range(3)), "a generator cannot be copied"),
        (lambda: threading.Lock(), "a lock cannot be copied"),
        (lambda: {"lock": threading.Lock()}, "it holds a lock, which cannot be copied"),
        (lambda: open(__file__), "an open file cannot be copied"),  # noqa: SIM115 (closed below)
    ],
    ids=["generator", "lock", "a dict holding a lock", "open file"],
)
def test_what_cannot_be_copied_is_not_restorable_and_says_why(value: Any, why: str) -> None:
    thing = value()
    box = Journaled(thing=thing, consume=id)
    step = box.run("consume(thing)")  # passed to a function the analysis does not know: it may change it
    assert step is not None
    (change,) = [c for c in step.changes if c.name == "thing"]
    assert change.unknown and change.before.lost == why
    assert box.undo() == [f"not restorable: thing ({why})"]
    if hasattr(thing, "close"):
        thing.close()


def test_an_old_object_only_the_journal_still_holds_counts_in_the_budget() -> None:
    box = Journaled(budget=8 * MB, frame=np.zeros(MB // 8 * 2))
    box.run("frame = frame[:10].copy()")  # the only name for the 2 MB array now holds something else
    assert box.store.held_bytes == 2 * MB
    small = Journaled(budget=1 * MB, frame=np.zeros(MB // 8 * 2))
    small.run("frame = None")
    assert small.store.held_bytes == 0
    assert small.undo() == [
        "not restorable: frame (2.0 MB, more than the 1.0 MB kernel_undo_budget_mb allows, and nothing else "
        "held the old object)"
    ]


def test_an_old_object_something_else_still_holds_is_kept_for_free() -> None:
    table = np.zeros(MB // 8 * 2)
    box = Journaled(budget=1 * MB, frame=table)
    box.run("frame = None")
    assert box.store.held_bytes == 0
    assert box.undo() == ["restored 1 variable (frame)"] and box.namespace["frame"] is table


def test_changes_made_before_an_error_are_journaled_too() -> None:
    box = Journaled(rows=[1])
    box.run("rows.append(2)\nnew = 1\nraise ValueError('late')")
    assert box.outcome.error == "ValueError: late"
    assert box.undo() == ["restored 1 variable (rows), removed 1 (new)"]


def test_changes_made_before_an_interrupt_are_journaled_too() -> None:
    box = Journaled(rows=[1])
    box.run("rows.append(2)\nraise KeyboardInterrupt")
    assert box.outcome.interrupted
    assert box.undo() == ["restored 1 variable (rows)"]


def test_a_failure_of_the_journal_is_said_and_the_code_s_result_stands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("digest exploded")

    monkeypatch.setattr(capture, "_fingerprint_of", broken)
    namespace: dict[str, Any] = {}
    watch = KernelWatch(
        namespace=namespace,
        store=KernelUndoStore(),
        budget=MB,
        journal=RunJournal(run_id=1),
        tool="RunCode",
        label="RunCode",
    )
    outcome = CodeRun(
        "x = [1]\nprint('ran')",
        namespace,
        shell=None,
        timeout=30,
        max_chars=100,
        max_image_bytes=0,
        watch=watch,
    ).run()
    assert outcome.error is None and outcome.output == "ran\n" and namespace["x"] == [1]
    assert result_note(watch.step, watch.failure) == (
        "\n[kernel journal: the changes this call made to variables could not be recorded (RuntimeError: digest "
        "exploded); %agent undo cannot restore them]"
    )


def test_an_object_pinned_after_the_call_is_recognised_by_identity_only() -> None:
    frame = pd.DataFrame({"a": [1]})
    pin = Pin(frame)
    assert pin.matches(frame) and not pin.matches(frame.copy())
    big = list(range(100_000))  # no weak reference, too large to hold: pinned by id
    pinned_big = Pin(big)
    assert pinned_big.matches(big) and not pinned_big.matches(list(big))
    gone = Pin(pd.DataFrame())  # its object is freed: nothing matches it any more, not even None
    assert not gone.matches(None)


def test_python_s_own_builtins_entry_is_never_journaled() -> None:
    box = Journaled()
    del box.namespace["__name__"]
    step = box.run("x = 1")
    assert step is not None and [c.name for c in step.changes] == ["x"]
    assert "__builtins__" in box.namespace


def test_a_name_the_user_changed_after_the_run_is_kept_with_the_reason() -> None:
    box = Journaled(rows=[1], created=None)
    box.run("rows.append(2); created = {'a': 1}; fresh = [0]")
    box.namespace["rows"].append(3)  # the user changes it in place
    box.namespace["created"]["b"] = 2  # and the object the agent made
    box.namespace["fresh"] = "mine"  # and rebinds another
    assert box.undo() == [
        "skipped variable created: it changed after the agent's code ran (you changed it in place); undoing "
        "would lose that",
        "skipped variable fresh: it holds another object since the agent's code ran (you assigned it); undoing "
        "would lose that",
        "skipped variable rows: it changed after the agent's code ran (you changed it in place); undoing would "
        "lose that",
    ]
    assert box.namespace["rows"] == [1, 2, 3] and box.namespace["fresh"] == "mine"


def test_sizes_read_as_a_process_monitor_shows_them() -> None:
    assert [human_bytes(n) for n in (120, 4096, 82 * MB, int(1.2 * 1024 * MB))] == [
        "120 bytes",
        "4.0 KB",
        "82 MB",
        "1.2 GB",
    ]


def test_the_review_lists_each_variable_beside_files_and_cells_and_undoes_one(tmp_path: Path) -> None:
    box = Journaled(model={"w": [1]}, rows=[0])
    box.run("model['w'].clear(); rows = 'replaced'; tmp = 1")
    sandbox = Sandbox.at(tmp_path)
    assert review.review_text(box.journal, sandbox).splitlines() == [
        "run 1  variable model  changed  in place  pending",
        "run 1  variable rows   changed  rebound   pending",
        "run 1  variable tmp    added              pending",
    ]
    ctx = ToolContext(sandbox=sandbox, namespace=box.namespace, services=ToolServices(kernel_undo=box.store))
    chosen = review.select(box.journal, "model", sandbox)
    results = asyncio.run(review.undo(box.journal, chosen, ctx))
    assert [(r.key, r.outcome, r.text) for r in results] == [
        ("kernel:model", "undone", "restored variable model")
    ]
    assert box.namespace["model"] == {"w": [1]} and box.namespace["rows"] == "replaced"
    assert review.review_rows(box.journal, sandbox)[0] == (
        "variable",
        "model",
        "changed",
        "in place",
        "undone",
    )
    assert [c.key for c in review.select(box.journal, "all", sandbox)] == ["kernel:rows", "kernel:tmp"]


def test_a_polars_frame_is_cloned_and_an_arrow_table_needs_no_copy() -> None:
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    frame = pl.DataFrame({"a": [1, 2, 3]})
    table = pa.table({"x": [1, 2]})
    box = Journaled(frame=frame.clone(), table=table)
    box.namespace["pa_array"] = pa.array([3, 4])
    step = box.run("frame[0, 'a'] = 100\nwider = table.append_column('y', pa_array)")
    assert step is not None and [(c.name, c.in_place) for c in step.changes] == [
        ("frame", True),
        ("wider", False),
    ]
    assert (
        box.namespace["table"] is table and box.store.held_bytes > 0
    )  # the frame's clone, nothing for Arrow
    assert box.undo() == ["restored 1 variable (frame), removed 1 (wider)"]
    assert box.namespace["frame"].equals(frame)


class Cache:
    """Holds a lock, but copies itself without it: not refused for the lock inside."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: list[int] = []

    def __getstate__(self) -> dict[str, Any]:
        return {"items": self.items}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.lock = threading.Lock()
        self.items = state["items"]


def test_an_object_that_copies_itself_its_own_way_is_not_refused_for_what_it_holds() -> None:
    box = Journaled(cache=Cache())
    box.run("cache.items.append(1)")
    assert box.undo() == ["restored 1 variable (cache)"]
    assert box.namespace["cache"].items == []


class _SlowToCopy:
    """Its copy takes 3 s (in small sleeps, so the time limit can stop it) — or raises what `fail` says."""

    def __init__(self, fail: BaseException | None = None) -> None:
        self.items = [1]
        self.fail = fail

    def __deepcopy__(self, memo: dict[int, Any]) -> _SlowToCopy:
        import time

        if self.fail is not None:
            raise self.fail
        until = time.monotonic() + 3
        while time.monotonic() < until:
            time.sleep(0.01)
        return _SlowToCopy()


def _run_watched(namespace: dict[str, Any], timeout: float) -> tuple[Any, KernelWatch]:
    from jupyter_agent.builtin_tools.kernel.runcode import outcome_result

    watch = KernelWatch(
        namespace=namespace,
        store=KernelUndoStore(),
        budget=MB,
        journal=RunJournal(run_id=1),
        tool="RunCode",
        label="RunCode",
    )
    outcome = CodeRun(
        "slow.items.append(2)\nprint('ran')",
        namespace,
        shell=None,
        timeout=timeout,
        max_chars=1000,
        max_image_bytes=0,
        watch=watch,
    ).run()
    return outcome_result(outcome, seconds=timeout, max_chars=1000), watch


def test_the_journal_s_copy_counts_against_the_call_s_time_limit() -> None:
    namespace: dict[str, Any] = {"slow": _SlowToCopy()}

    result, _ = _run_watched(namespace, timeout=0.5)

    assert result.is_error and result.error_code == "TIMEOUT"
    assert namespace["slow"].items == [1]  # the code never ran: the limit ran out while the journal copied
    assert result.content.startswith(
        "TIMEOUT: the code did not run: the 0.5 s time limit ran out while the kernel journal copied the variables it "
        "may change (slow)"
    ), result.content


def test_when_the_journal_fails_the_model_is_told_the_code_never_ran() -> None:
    namespace: dict[str, Any] = {"slow": _SlowToCopy(fail=SystemExit("from __deepcopy__"))}

    result, _ = _run_watched(namespace, timeout=30)

    assert namespace["slow"].items == [1]
    assert "the code raised" not in result.content
    assert result.content.startswith(
        "EXECUTION_ERROR: the code did not run: the kernel journal failed while it copied the variables it may change (slow): "
        "SystemExit: from __deepcopy__"
    ), result.content
