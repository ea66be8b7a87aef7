"""The latch: an Interrupt raises until the wait holds it, is only noted after; the kernel's handler comes back on
exit, unless the cell is the run and nothing else (then the noting one stays until the kernel replaces it)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from jupyter_agent.ui.interrupts import InterruptLatch, finish_cell, only_the_run


@pytest.fixture
def kernel_handler() -> Iterator[object]:
    """A handler standing for ipykernel's during a cell (it raises); the test's own one is put back after."""
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield signal.default_int_handler
    signal.signal(signal.SIGINT, before)


def test_an_interrupt_raises_until_held_then_is_noted(kernel_handler: object) -> None:
    with InterruptLatch() as latch:
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
        latch.hold()
        signal.raise_signal(signal.SIGINT)
        assert latch.noted
    assert signal.getsignal(signal.SIGINT) is kernel_handler


def test_the_kernels_handler_comes_back_on_exit(kernel_handler: object) -> None:
    with InterruptLatch() as latch:
        latch.hold()
    assert signal.getsignal(signal.SIGINT) is kernel_handler
    with pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)


def test_for_a_cell_that_is_only_the_run_an_interrupt_after_the_exit_is_noted_not_raised(
    kernel_handler: object,
) -> None:
    with InterruptLatch() as latch:
        latch.note_until_replaced()
    signal.raise_signal(signal.SIGINT)  # between the run's end and the kernel's reply: nothing raised
    assert latch.noted
    assert signal.getsignal(signal.SIGINT) is not kernel_handler  # until the kernel puts its own back


@pytest.mark.parametrize(
    ("code", "only"),
    [
        ("%%agent\nsummarise df", True),
        ("  %%agent --mode plan\nwhy?\n", True),
        ("%agent fix", True),
        ("%agent fix\nprint('after')", False),
        ("get_ipython().run_cell_magic('agent', '', 'hi')\nx = 1", False),
        ("", False),
    ],
)
def test_a_cell_is_only_the_run_when_nothing_of_the_users_follows_it(code: str, only: bool) -> None:
    assert only_the_run(code) is only


@pytest.mark.parametrize(
    ("code", "kernel", "noting_stays"),
    [
        ("%%agent\nhi", SimpleNamespace(post_handler_hook=lambda: None), True),
        ("%%agent\nhi", None, False),  # IPython in a terminal: nothing would put its handler back
        (
            "x = 1\nget_ipython().run_cell_magic('agent', '', 'hi')\nwhile True: pass",
            SimpleNamespace(post_handler_hook=lambda: None),
            False,
        ),
    ],
    ids=["a %%agent cell in ipykernel", "no kernel", "user code after the run"],
)
def test_the_noting_handler_outlives_only_a_cell_that_is_the_run_in_a_kernel_that_replaces_it(
    kernel_handler: object, code: str, kernel: object, noting_stays: bool
) -> None:
    with InterruptLatch() as latch:
        finish_cell(latch, kernel=kernel, code=code)
    assert (signal.getsignal(signal.SIGINT) is not kernel_handler) is noting_stays
