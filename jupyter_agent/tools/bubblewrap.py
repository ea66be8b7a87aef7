"""Bash in an OS sandbox: bubblewrap (`bwrap`), as Claude Code uses it on Linux.

Inside, a command sees its own PID namespace and a fresh /proc (the kernel's process, and the environment it
started with, are out of reach), only the scrubbed environment, the allowed roots writable and everything else
read-only, a private /tmp, and no network unless `bash_network` is on (nor the sockets of local services in
/run). `--die-with-parent` and the PID
namespace make sure nothing outlives a killed command.

Reads are not restricted (the command can read what your user can, e.g. files in your home directory), and
with `bash_network` on it can reach local services too, the kernel's own ports included.

Whether bwrap works is found out once per executable (it fails at start where user namespaces are off, as in
some containers); where it does not, Bash runs unsandboxed, and `%agent status` and the approval say so.
`JUPYTER_AGENT_BWRAP` names the executable to use instead of the one on PATH (a path that does not exist
turns the sandbox off; tests use it to exercise both paths).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

BWRAP_ENV = "JUPYTER_AGENT_BWRAP"
_PROBE_TIMEOUT = 20.0


def _isolation(network: bool) -> list[str]:
    """Everything but the binds: namespaces, /proc, /dev, /tmp, and the parent tie."""
    return [
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        # Without the network, local services' sockets in /run (a database, docker, dbus) are cut off too.
        *([] if network else ["--tmpfs", "/run"]),
        "--unshare-all",
        *(["--share-net"] if network else []),
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
    ) -> list[str]:
        """The command line that runs `argv` in the sandbox; start it with `env` as its environment too, so the
        sandbox's PID 1 (bwrap itself, which the command can read in /proc) holds nothing else."""
        binds = [arg for top in _tmp_tops([*writable, cwd]) for arg in ("--ro-bind", str(top), str(top))]
        binds += [arg for root in writable for arg in ("--bind", str(root), str(root))]
        setenv = [arg for name, value in env.items() for arg in ("--setenv", name, value)]
        return [
            self.executable,
            *_isolation(network),
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

    def describe(self, *, network: bool = False) -> str:
        if self.bubblewrap is None:
            return f"unsandboxed: {self.problem}; commands run with your user's full access"
        net = "network allowed (bash_network)" if network else "no network"
        return (
            f"sandboxed (bubblewrap): own processes and /proc, only the roots writable, private /tmp, {net}"
        )


def check_sandbox() -> SandboxCheck:
    """Which bwrap to use (`$JUPYTER_AGENT_BWRAP`, else the one on PATH), tried once per executable."""
    chosen = os.environ.get(BWRAP_ENV)
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
