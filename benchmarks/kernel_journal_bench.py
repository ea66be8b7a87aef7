"""The kernel journal's cost: what RunCode adds around the agent's code, against the same code run without it.

In one process, with IPython's shell and a namespace like a data scientist's (a few hundred names, one 100 MB
pandas DataFrame), `CodeRun` runs the same code with and without the journal's watch (`KernelWatch`):

- **Code that touches nothing large** (`print(len(df)); total = sum(range(N))`, N changing so no cache helps): the
  added time of a RunCode call as the kernel makes it — the tool on the agent's worker thread, the code on the
  main thread (`UIChannel` and `MainLoop`, as during `%%agent`, without the ZMQ socket) — against the same call
  with the journal's watch replaced by one that does nothing. Target: ≤ 1.05 (5 %). Also the strictest
  figure: the journal against the bare execution of the code (`CodeRun.run`, no hop, no tool).
- **Code that changes the 100 MB frame in place** (`df['a'] += 1`): the added time and the memory the journal
  then holds (its copy), and the copy alone against a plain `df.copy()` in the same process. Target: the
  journal's copy within 2× `df.copy()`.

Prints figures; asserts nothing.

    .venv/bin/python benchmarks/kernel_journal_bench.py [--megabytes 100] [--calls 60] [--runs 300] [--names 400]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.base.journal import RunJournal
from jupyter_agent.base.kernel_journal import KernelUndoStore, human_bytes
from jupyter_agent.builtin_tools.kernel.execution import CodeRun
from jupyter_agent.builtin_tools.kernel.journal.capture import KernelWatch
from jupyter_agent.builtin_tools.kernel.journal.copies import plan_copy, take_copy

BUDGET = 512 * 1024 * 1024
QUIET = "print(len(df)); total = sum(range({n}))"
IN_PLACE = "df['a'] += 1"


def frame(megabytes: int) -> pd.DataFrame:
    columns = 10
    rows = megabytes * 1024 * 1024 // 8 // columns
    rng = np.random.default_rng(7)
    return pd.DataFrame({f"c{i}" if i else "a": rng.random(rows) for i in range(columns)})


def namespace(shell: InteractiveShell, df: pd.DataFrame, names: int) -> dict[str, Any]:
    """The shell's own namespace, with what a working session holds: small values, lists, dicts, the frame."""
    user_ns = shell.user_ns
    for i in range(names):
        user_ns[f"v{i}"] = [i] * 5 if i % 3 == 0 else {"k": i} if i % 3 == 1 else f"text {i}"
    user_ns["df"] = df
    return user_ns


def one_run(
    shell: InteractiveShell, ns: dict[str, Any], code: str, *, journal: bool, store: KernelUndoStore
) -> float:
    watch = (
        KernelWatch(
            namespace=ns,
            store=store,
            budget=BUDGET,
            journal=RunJournal(run_id=1),
            tool="RunCode",
            label="RunCode",
        )
        if journal
        else None
    )
    job = CodeRun(code, ns, shell=shell, timeout=60, max_chars=10_000, max_image_bytes=1024, watch=watch)
    began = time.perf_counter()
    outcome = job.run()
    elapsed = time.perf_counter() - began
    if outcome.error is not None:
        raise SystemExit(f"the benchmark's code failed: {outcome.error}")
    return elapsed


class _NoWatch:
    """The baseline's watch: the RunCode call without the journal (nothing kept, nothing compared)."""

    step = None
    failure = ""

    def before(self, effects: object, referenced: object = None) -> None:
        return None

    def after(self) -> None:
        return None


def tool_calls(shell: InteractiveShell, ns: dict[str, Any], runs: int) -> tuple[list[float], list[float]]:
    """RunCode calls through the real hop: the tool awaits on the worker, `MainLoop` runs the code here."""
    import asyncio

    from jupyter_agent.agent.worker import AgentWorker
    from jupyter_agent.base.sandbox import Sandbox
    from jupyter_agent.builtin_tools.kernel import runcode
    from jupyter_agent.builtin_tools.kernel.runcode import RunCode, RunCodeInput
    from jupyter_agent.tools.context import ToolContext, ToolServices
    from jupyter_agent.ui.channel import UIChannel
    from jupyter_agent.ui.presenter import wait_quietly

    channel = UIChannel()
    ctx = ToolContext(
        sandbox=Sandbox.at(Path.cwd()),
        namespace=ns,
        services=ToolServices(shell=shell, main_thread=channel),
    )
    tool = RunCode()
    real_watch = runcode.watch_call

    async def calls(journal: bool, count: int, start: int) -> list[float]:
        runcode.watch_call = real_watch if journal else (lambda *_args, **_kwargs: _NoWatch())  # type: ignore[assignment]
        times: list[float] = []
        for i in range(count):
            params = RunCodeInput(code=QUIET.format(n=start + i))
            began = time.perf_counter()
            result = await tool.run(params, ctx)
            times.append(time.perf_counter() - began)
            if result.is_error:
                raise SystemExit(f"the benchmark's RunCode failed: {result.content}")
        await asyncio.sleep(0)
        return times

    worker = AgentWorker()
    base: list[float] = []
    mine: list[float] = []
    try:
        for round_ in range(runs):
            for journal, into in ((False, base), (True, mine)):
                future = worker.submit(calls(journal, 1, round_ * 2 + journal))
                wait_quietly(kernel=None, channel=channel, worker=worker, future=future)
                into.extend(future.result())
    finally:
        runcode.watch_call = real_watch
        worker.shutdown()
    return base, mine


def alternate(
    runs: int, plain: Callable[[], float], journaled: Callable[[], float]
) -> tuple[list[float], list[float]]:
    """Interleaved, so a slow moment of a shared machine hits both sides alike."""
    base: list[float] = []
    mine: list[float] = []
    for _ in range(runs):
        base.append(plain())
        mine.append(journaled())
    return base, mine


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--megabytes", type=int, default=100)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--names", type=int, default=400)
    parser.add_argument("--copies", type=int, default=7)
    args = parser.parse_args()
    shell = InteractiveShell.instance()
    df = frame(args.megabytes)
    ns = namespace(shell, df, args.names)
    store = KernelUndoStore()
    size = int(df.memory_usage(deep=False).sum())
    print(
        f"namespace: {len(ns)} names, df {human_bytes(size)} ({len(df):,} rows × {len(df.columns)} columns)"
    )

    counter = iter(range(10**9))
    for _ in range(20):  # warm up: imports, IPython's transformers
        one_run(shell, ns, QUIET.format(n=next(counter)), journal=True, store=store)
        one_run(shell, ns, QUIET.format(n=next(counter)), journal=False, store=store)
    base, mine = tool_calls(shell, ns, args.calls)
    plain_t, journal_t = statistics.median(base), statistics.median(mine)
    print(f"a RunCode call that touches nothing large ({QUIET!r}), median of {args.calls}:")
    print(f"  plain RunCode call:     {ms(plain_t)}  (worker → main thread → worker)")
    print(f"  with the journal:       {ms(journal_t)}  (+{ms(journal_t - plain_t)})")
    print(f"  ratio (journal / plain): {journal_t / plain_t:.3f}×  (target ≤ 1.05×)")
    base, mine = alternate(
        args.runs,
        lambda: one_run(shell, ns, QUIET.format(n=next(counter)), journal=False, store=store),
        lambda: one_run(shell, ns, QUIET.format(n=next(counter)), journal=True, store=store),
    )
    plain_t, journal_t = statistics.median(base), statistics.median(mine)
    print(f"  the code's execution alone (CodeRun.run, no hop, no tool), median of {args.runs}:")
    print(f"    plain {ms(plain_t)}, with the journal {ms(journal_t)}: {journal_t / plain_t:.3f}×")

    copies: list[float] = []
    plain_copies: list[float] = []
    for _ in range(args.copies):
        began = time.perf_counter()
        plain_copy = df.copy()
        plain_copies.append(time.perf_counter() - began)
        del plain_copy
        began = time.perf_counter()
        plan = plan_copy(df, BUDGET)
        assert not hasattr(plan, "why"), plan
        journal_copy = take_copy(df, "pandas", {})
        copies.append(time.perf_counter() - began)
        del journal_copy
    copy_t, plain_copy_t = statistics.median(copies), statistics.median(plain_copies)
    print(f"copy of the {human_bytes(size)} frame, median of {args.copies}:")
    print(f"  plain df.copy():        {ms(plain_copy_t)}")
    print(f"  the journal's copy:     {ms(copy_t)}  (sizing + .copy(deep=True))")
    print(f"  ratio (journal / plain): {copy_t / plain_copy_t:.2f}×  (target ≤ 2×)")

    in_place_plain: list[float] = []
    in_place_journal: list[float] = []
    held: list[int] = []
    for _ in range(args.copies):
        in_place_plain.append(one_run(shell, ns, IN_PLACE, journal=False, store=store))
        fresh = KernelUndoStore()
        in_place_journal.append(one_run(shell, ns, IN_PLACE, journal=True, store=fresh))
        held.append(fresh.held_bytes)
    plain_t, journal_t = statistics.median(in_place_plain), statistics.median(in_place_journal)
    print(f"code that changes the frame in place ({IN_PLACE!r}), median of {args.copies}:")
    print(f"  plain CodeRun:          {ms(plain_t)}")
    print(f"  with the journal:       {ms(journal_t)}  (+{ms(journal_t - plain_t)}: copy, compare, digest)")
    print(
        f"  memory the journal holds after it: {human_bytes(max(held))} (the copy; {max(held) / size:.2f}× the frame)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
