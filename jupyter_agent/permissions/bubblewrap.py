"""Bash in an OS sandbox: bubblewrap (`bwrap`), as Claude Code uses it on Linux.

Inside, a command sees its own PID namespace and a fresh /proc (the kernel's process, and the environment it
started with, are out of reach), only the scrubbed environment, the allowed roots writable and everything else
read-only, a private /tmp, and no network unless `bash_network` is on (nor the sockets of local services in
/run). `--die-with-parent` and the PID namespace make sure nothing outlives a killed command. Inside the roots
the protected paths that exist are read-only, and credential stores and the Jupyter runtime directory are
hidden (`sandbox_guard`).

With `bash_network` on, the command gets its own network namespace with outbound access through
`slirp4netns --disable-host-loopback` (`netns_launch`): the kernel's ports on 127.0.0.1, and every other
service listening on the host's loopback, are out of reach. Without slirp4netns the host's network is shared,
loopback included, and the sandbox's description says so.

Reads elsewhere are not restricted (the command can read what your user can outside the hidden places).

Whether bwrap works is found out once per executable (it fails at start where user namespaces are off, as in
some containers); bubblewrap exists only on Linux. Where Bash cannot run sandboxed, it fails closed
(`AgentMagics.bash_sandbox = "required"`, the default): every command asks and the approval says `unsandboxed`,
even under an allow rule (headless, it is refused with the hint); `bash_sandbox = "off"` lets allow rules run it
unsandboxed. `%agent status` says which. `JUPYTER_AGENT_BWRAP` names the executable to use instead of the one on
PATH (a path that does not exist hides bwrap; tests use it to exercise both paths).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .sandbox_guard import Guarded

BWRAP_ENV = "JUPYTER_AGENT_BWRAP"
_PROBE_TIMEOUT = 20.0


def slirp4netns() -> str | None:
    """The slirp4netns that gives a sandbox outbound network without the host's loopback, if installed."""
    return shutil.which("slirp4netns")


def _isolation(network: bool, *, shared_net: bool = True) -> list[str]:
    """Everything but the binds: namespaces, /proc, /dev, /tmp, and the parent tie."""
    return [
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        # Without the network, local services' sockets in /run (a database, docker, dbus) are cut off too.
        *([] if network else ["--tmpfs", "/run"]),
        "--unshare-all",
        *(["--share-net"] if network and shared_net else []),
        "--die-with-parent",
    ]  # fmt: skip


@dataclass(frozen=True)
class Bubblewrap:
    """A bwrap executable known to work here."""

    executable: str

    def wrap(
        self,
        argv: Sequence[str],
        *,
        writable: Sequence[Path],
        cwd: Path,
        env: Mapping[str, str],
        network: bool,
        guard: Guarded | None = None,
    ) -> list[str]:
        """The command line that runs `argv` in the sandbox; start it with `env` as its environment too, so the
        sandbox's PID 1 (bwrap itself, which the command can read in /proc) holds nothing else. With the network
        on and slirp4netns installed, the line starts with the launcher that connects a private network."""
        binds = [arg for top in _tmp_tops([*writable, cwd]) for arg in ("--ro-bind", str(top), str(top))]
        binds += [arg for root in writable for arg in ("--bind", str(root), str(root))]
        binds += guard.bwrap_args() if guard is not None else []
        setenv = [arg for name, value in env.items() for arg in ("--setenv", name, value)]
        slirp = slirp4netns() if network else None
        launcher = (
            [sys.executable, "-I", str(Path(__file__).with_name("netns_launch.py")), slirp] if slirp else []
        )
        return [
            *launcher,
            self.executable,
            *_isolation(network, shared_net=slirp is None),
            *binds,
            "--clearenv",
            *setenv,
            "--chdir",
            str(cwd),
            "--",
            *argv,
        ]


def _tmp_tops(paths: Sequence[Path]) -> list[Path]:
    """The host directories right under /tmp that hold these paths: shown read-only over the private /tmp,
    so a root in /tmp has the host's read-only parents around it (`touch ../x` fails, as it does elsewhere)
    rather than a scratch parent where writes vanish."""
    tmp = Path("/tmp")
    return sorted({tmp / p.relative_to(tmp).parts[0] for p in paths if p != tmp and p.is_relative_to(tmp)})


@dataclass(frozen=True)
class SandboxCheck:
    """The outcome of looking for a working bwrap: the sandbox to use, or why commands run unsandboxed."""

    bubblewrap: Bubblewrap | None
    problem: str = ""

    def describe(self, *, network: bool = False, required: bool = True) -> str:
        if self.bubblewrap is None:
            under_rules = (
                'every command asks, even under an allow rule (AgentMagics.bash_sandbox = "required")'
                if required
                else 'allow rules run commands unsandboxed (AgentMagics.bash_sandbox = "off")'
            )
            return f"unsandboxed: {self.problem}; commands run with your user's full access; {under_rules}"
        if not network:
            net = "no network"
        elif slirp4netns():
            net = (
                "outbound network only (bash_network; the kernel's ports and the host's loopback unreachable)"
            )
        else:
            net = "network shared with the kernel, its ports included (bash_network; install slirp4netns to fence them)"
        return (
            "sandboxed (bubblewrap): own processes and /proc, only the roots writable (protected paths "
            f"read-only), credentials and kernel connection files hidden, private /tmp, {net}"
        )

    def unsandboxed_reason(self, *, required: bool) -> str | None:
        """Why a command must ask even under an allow rule (None: it runs sandboxed, or the user chose "off")."""
        if self.bubblewrap is not None or not required:
            return None
        return (
            f"unsandboxed: {self.problem}, so the command would run with your user's full access; an allow rule "
            "does not run Bash outside its OS sandbox — to let allow rules run it, install bubblewrap (docs/guide/"
            'security.md, "The Bash sandbox") or set %config AgentMagics.bash_sandbox = "off"'
        )


def check_sandbox() -> SandboxCheck:
    """Which bwrap to use (`$JUPYTER_AGENT_BWRAP`, the one override of its path; else the one on PATH), tried once
    per executable; none outside Linux."""
    if not sys.platform.startswith("linux"):
        return SandboxCheck(
            None, f"the OS sandbox (bubblewrap) runs only on Linux, and this kernel runs on {sys.platform}"
        )
    chosen = os.environ.get(BWRAP_ENV)
    if chosen and not os.path.exists(chosen):
        return SandboxCheck(None, f"{BWRAP_ENV} names {chosen}, which does not exist")
    executable = chosen or shutil.which("bwrap")
    if executable is None:
        return SandboxCheck(None, "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)")
    return _try(executable)


@lru_cache(maxsize=8)
def _try(executable: str) -> SandboxCheck:
    argv = [executable, *_isolation(False), "--clearenv", "--", "/bin/true"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=_PROBE_TIMEOUT, env={}, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return SandboxCheck(None, f"bwrap at {executable} cannot be run ({type(exc).__name__}: {exc})")
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = why[-1] if why else f"exit {done.returncode}"
        return SandboxCheck(
            None, f"bwrap at {executable} cannot start here ({detail}); user namespaces may be disabled"
        )
    return SandboxCheck(Bubblewrap(executable))
