"""Which kernels get in-cell approvals: the pump only reads the shell socket of the ipykernel versions it was
tested against (7.0 to 7.4.x), in a kernel whose shell-channel reader has the tested shape. Everywhere else
it says why (logged) and approvals fall back to the mode's defaults.

Another installed ipykernel is a real `ipykernel-X.dist-info` ahead of the real one on sys.path, which is
what importlib.metadata reads; a kernel of another shape is an object without the tested internals.
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from jupyter_agent.ui.pump import ShellPump, unsupported_reason

NO_KERNEL = "no ipykernel kernel is running (terminal IPython?)"
OTHER_SHAPE = (
    "this ipykernel's shell-channel reader is not the one tested (internals changed); approvals fall back"
)


@pytest.fixture
def installed_ipykernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """`installed_ipykernel("6.29.5")`: that version is the ipykernel importlib.metadata finds first."""

    def install(version: str) -> None:
        site = tmp_path / version
        info = site / f"ipykernel-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: ipykernel\nVersion: {version}\n")
        monkeypatch.setattr(sys, "path", [str(site), *sys.path])
        importlib.invalidate_caches()

    return install


@pytest.mark.parametrize("version", ["7.0.0", "7.0", "7.2.1", "7.4.0", "7.4.12"])
def test_tested_ipykernel_versions_are_supported(
    installed_ipykernel: Callable[[str], None], version: str
) -> None:
    installed_ipykernel(version)
    # past the version check, the next thing missing is the kernel itself
    assert unsupported_reason(None) == NO_KERNEL


@pytest.mark.parametrize(
    "version", ["6.29.5", "7.5.0", "7.5.1", "8.0.0", "7", "7.x", "seven.four", "10.2rc1"]
)
def test_other_ipykernel_versions_are_refused_naming_the_version_and_the_tested_range(
    installed_ipykernel: Callable[[str], None],
    version: str,
) -> None:
    installed_ipykernel(version)
    assert unsupported_reason(None) == (
        f"ipykernel {version} is not supported for in-cell approvals (tested 7.0–7.4.x); "
        "approvals fall back to the mode's defaults"
    )


def test_without_ipykernel_installed_the_reason_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", [p for p in sys.path if "-packages" not in p])
    importlib.invalidate_caches()
    assert unsupported_reason(None) == "ipykernel is not installed"


def test_in_terminal_ipython_there_is_no_kernel_to_pump(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="jupyter_agent.ui.pump"):
        assert ShellPump.for_kernel(None) is None
    assert caplog.messages == [f"jupyter_agent: {NO_KERNEL}"]


def reader(recv: object, run: object) -> SimpleNamespace:
    """A kernel whose shell channel has the tested attributes, with these as the reader's callbacks."""
    stream = SimpleNamespace(_recv_callback=recv, _run_callback=run)
    pair = SimpleNamespace(to_socket=object(), to_stream=stream)
    return SimpleNamespace(
        shell_channel_thread=SimpleNamespace(manager=SimpleNamespace(_shell_channel_to_main=pair))
    )


@pytest.mark.parametrize(
    "kernel",
    [
        object(),  # no shell channel thread at all
        SimpleNamespace(shell_channel_thread=SimpleNamespace(manager=SimpleNamespace())),
        reader(None, print),  # the reader has no receive callback
        reader(print, None),
    ],
    ids=["no-shell-thread", "no-pair-socket", "no-receive-callback", "no-run-callback"],
)
def test_a_kernel_whose_shell_reader_is_not_the_tested_one_is_not_pumped(
    kernel: object, caplog: pytest.LogCaptureFixture
) -> None:
    assert unsupported_reason(kernel) == OTHER_SHAPE
    with caplog.at_level(logging.INFO, logger="jupyter_agent.ui.pump"):
        assert ShellPump.for_kernel(kernel) is None
    assert caplog.messages == [f"jupyter_agent: {OTHER_SHAPE}"]


def test_a_kernel_with_the_tested_shell_reader_is_pumped() -> None:
    kernel = reader(print, print)
    assert unsupported_reason(kernel) is None
    pump = ShellPump.for_kernel(kernel)
    assert pump is not None and pump.kernel is kernel
