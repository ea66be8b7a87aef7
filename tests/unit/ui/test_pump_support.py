"""Which kernels get in-cell approvals: the pump checks for each ipykernel internal it uses (feature detection),
not for a version range. A kernel that lacks one is told exactly which, with the installed version; a
kernel with all of them is pumped whatever its version says.

Another installed ipykernel is a real `ipykernel-X.dist-info` ahead of the real one on sys.path, which is
what importlib.metadata reads; a kernel of another shape is an object with some internals missing.
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from jupyter_agent.ui.pump import INTERNALS, ShellPump, missing_internals, unsupported_reason

NO_KERNEL = "no ipykernel kernel is running (terminal IPython?)"


@pytest.fixture
def installed_ipykernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """`installed_ipykernel("7.5.0")`: that version is the ipykernel importlib.metadata finds first."""

    def install(version: str) -> None:
        site = tmp_path / version
        info = site / f"ipykernel-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: ipykernel\nVersion: {version}\n")
        monkeypatch.setattr(sys, "path", [str(site), *sys.path])
        importlib.invalidate_caches()

    return install


def kernel_with(**broken: Any) -> SimpleNamespace:
    """A kernel with every internal the pump uses; `broken` replaces parts (`reader=None`, `dispatch=…`)."""

    def dispatch_shell(frames: object, subshell_id: str | None = None) -> None: ...

    stream = broken.get("reader", SimpleNamespace(_recv_callback=print, _run_callback=print))
    pair = SimpleNamespace(to_socket=SimpleNamespace(poll=print, recv_multipart=print), to_stream=stream)
    return SimpleNamespace(
        shell_channel_thread=SimpleNamespace(manager=SimpleNamespace(_shell_channel_to_main=pair)),
        dispatch_shell=broken.get("dispatch", dispatch_shell),
        session=SimpleNamespace(feed_identities=print, deserialize=print),
        _parent_ident=broken.get("parent_ident", {"shell": b""}),
        get_parent=print,
        set_parent=print,
        _publish_status=print,
    )


def test_a_kernel_with_every_internal_is_pumped_whatever_its_version(
    installed_ipykernel: Callable[[str], None],
) -> None:
    installed_ipykernel("8.0.0")  # no version gate: the internals decide
    kernel = kernel_with()
    assert missing_internals(kernel) == []
    assert unsupported_reason(kernel) is None
    pump = ShellPump.for_kernel(kernel)
    assert pump is not None and pump.kernel is kernel


def _no_subshell_id(frames: object) -> None: ...


@pytest.mark.parametrize(
    ("broken", "named"),
    [
        ({"reader": None}, INTERNALS[1][0]),
        ({"reader": SimpleNamespace(_recv_callback=None, _run_callback=print)}, INTERNALS[1][0]),
        ({"dispatch": _no_subshell_id}, INTERNALS[2][0]),
        ({"parent_ident": {}}, INTERNALS[4][0]),
    ],
    ids=["no-reader", "no-receive-callback", "dispatch-without-subshell-id", "no-shell-parent"],
)
def test_a_missing_internal_is_named_with_the_installed_version(
    installed_ipykernel: Callable[[str], None],
    broken: dict[str, Any],
    named: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    installed_ipykernel("7.5.0")
    kernel = kernel_with(**broken)
    assert missing_internals(kernel) == [named]
    reason = (
        "in-cell approvals and live notebook edits need ipykernel internals that ipykernel 7.5.0 does not have "
        f"({named}), so nothing can be clicked or answered while a cell runs; a jupyter-claude-agent release that "
        "supports this ipykernel fixes it"
    )
    assert unsupported_reason(kernel) == reason
    with caplog.at_level(logging.INFO, logger="jupyter_agent.ui.pump"):
        assert ShellPump.for_kernel(kernel) is None
    assert caplog.messages == [f"jupyter_agent: {reason}"]


def test_a_kernel_of_another_shape_lacks_every_internal() -> None:
    assert missing_internals(object()) == [name for name, _ in INTERNALS]


def test_without_ipykernel_installed_the_reason_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", [p for p in sys.path if "-packages" not in p])
    importlib.invalidate_caches()
    assert "ipykernel (not installed) does not have" in (unsupported_reason(object()) or "")


def test_in_terminal_ipython_there_is_no_kernel_to_pump(caplog: pytest.LogCaptureFixture) -> None:
    assert unsupported_reason(None) == NO_KERNEL
    with caplog.at_level(logging.INFO, logger="jupyter_agent.ui.pump"):
        assert ShellPump.for_kernel(None) is None
    assert caplog.messages == [f"jupyter_agent: {NO_KERNEL}"]
