"""The bwrap command line as data: what each sandbox gets, with and without the network, with protected paths
and hidden places, a root under /tmp, the outbound-network launcher — and what the description says."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from jupyter_agent.permissions import bubblewrap
from jupyter_agent.permissions.bubblewrap import BWRAP_ENV, Bubblewrap, SandboxCheck, check_sandbox
from jupyter_agent.permissions.sandbox_guard import Guarded

BASE = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]


def test_without_network_the_command_line_is_exactly_this() -> None:
    argv = Bubblewrap("/usr/bin/bwrap").wrap(
        ["/bin/bash", "-c", "ls"],
        writable=[Path("/srv/p")],
        cwd=Path("/srv/p"),
        env={"A": "1"},
        network=False,
    )
    assert argv == [
        "/usr/bin/bwrap", *BASE, "--tmpfs", "/run", "--unshare-all", "--die-with-parent",
        "--bind", "/srv/p", "/srv/p", "--clearenv", "--setenv", "A", "1", "--chdir", "/srv/p", "--", "/bin/bash", "-c", "ls",
    ]  # fmt: skip


def test_with_network_and_slirp_the_launcher_leads_and_the_network_is_private(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bubblewrap, "slirp4netns", lambda: "/usr/bin/slirp4netns")
    guard = Guarded(
        readonly=(Path("/srv/p/.env"),), pinned=(), hidden_dirs=(Path("/h/.ssh"),), hidden_files=()
    )
    argv = Bubblewrap("bwrap").wrap(
        ["x"], writable=[Path("/srv/p")], cwd=Path("/srv/p"), env={}, network=True, guard=guard
    )
    launcher = str(Path(bubblewrap.__file__).with_name("netns_launch.py"))
    assert argv[:5] == [sys.executable, "-I", launcher, "/usr/bin/slirp4netns", "bwrap"]
    assert "--share-net" not in argv and "/run" not in argv
    assert argv[argv.index("--ro-bind", 10) : argv.index("--ro-bind", 10) + 3] == [
        "--ro-bind",
        "/srv/p/.env",
        "/srv/p/.env",
    ]
    assert argv[argv.index("/h/.ssh") - 1 : argv.index("/h/.ssh") + 1] == ["--tmpfs", "/h/.ssh"]


def test_with_network_and_no_slirp_the_host_network_is_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bubblewrap, "slirp4netns", lambda: None)
    argv = Bubblewrap("bwrap").wrap(
        ["x"], writable=[Path("/srv/p")], cwd=Path("/srv/p"), env={}, network=True
    )
    assert argv[0] == "bwrap" and "--share-net" in argv and "/run" not in argv


def test_a_root_under_tmp_gets_its_host_parent_read_only_over_the_private_tmp() -> None:
    argv = Bubblewrap("bwrap").wrap(
        ["x"], writable=[Path("/tmp/a/b")], cwd=Path("/tmp/a/b"), env={}, network=False
    )
    assert argv[argv.index("--unshare-all") + 2 :][:6] == [
        "--ro-bind",
        "/tmp/a",
        "/tmp/a",
        "--bind",
        "/tmp/a/b",
        "/tmp/a/b",
    ]
    assert bubblewrap._tmp_tops([Path("/tmp"), Path("/srv/x"), Path("/tmp/q/r")]) == [Path("/tmp/q")]


def test_what_the_description_says(monkeypatch: pytest.MonkeyPatch) -> None:
    off = SandboxCheck(None, "bwrap is not installed")
    assert off.describe() == (
        "unsandboxed: bwrap is not installed; commands run with your user's full access; every command asks, even "
        'under an allow rule (AgentMagics.bash_sandbox = "required")'
    )
    assert off.describe(required=False).endswith(
        'allow rules run commands unsandboxed (AgentMagics.bash_sandbox = "off")'
    )
    on = SandboxCheck(Bubblewrap("bwrap"))
    assert on.describe().endswith("private /tmp, no network")
    assert on.describe().startswith(
        "sandboxed (bubblewrap): own processes and /proc, only the roots writable (protected"
    )
    monkeypatch.setattr(bubblewrap, "slirp4netns", lambda: "/usr/bin/slirp4netns")
    assert on.describe(network=True).endswith(
        "outbound network only (bash_network; the kernel's ports and the host's loopback unreachable)"
    )
    monkeypatch.setattr(bubblewrap, "slirp4netns", lambda: None)
    assert on.describe(network=True).endswith(
        "network shared with the kernel, its ports included (bash_network; install slirp4netns to fence them)"
    )


def test_a_bwrap_that_is_missing_or_cannot_start_turns_the_sandbox_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(BWRAP_ENV, str(tmp_path / "no-such-bwrap"))
    missing = check_sandbox()
    assert missing.bubblewrap is None
    assert missing.problem == f"{BWRAP_ENV} names {tmp_path / 'no-such-bwrap'}, which does not exist"
    failing = tmp_path / "failing-bwrap"
    failing.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    failing.chmod(0o755)
    monkeypatch.setenv(BWRAP_ENV, str(failing))
    refused = check_sandbox()
    assert refused.bubblewrap is None
    assert refused.problem == (
        f"bwrap at {failing} cannot start here (bwrap: No permissions to create new namespace); user namespaces may be disabled"
    )
    silent = tmp_path / "silent-bwrap"
    silent.write_text("#!/bin/sh\nexit 3\n")
    silent.chmod(0o755)
    monkeypatch.setenv(BWRAP_ENV, str(silent))
    assert check_sandbox().problem.endswith("cannot start here (exit 3); user namespaces may be disabled")
    working = tmp_path / "working-bwrap"
    working.write_text("#!/bin/sh\nexit 0\n")
    working.chmod(0o755)
    monkeypatch.setenv(BWRAP_ENV, str(working))
    assert check_sandbox().bubblewrap == Bubblewrap(str(working))
    monkeypatch.delenv(BWRAP_ENV)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert check_sandbox().problem == "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
