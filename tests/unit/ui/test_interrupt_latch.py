"""The latch: an Interrupt raises until the wait holds it, is only noted after; the kernel's handler comes back on
exit, unless the cell is the run and nothing else (then the noting one stays until the kernel replaces it)."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from jupyter_agent.ui.interrupts import InterruptLatch


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
