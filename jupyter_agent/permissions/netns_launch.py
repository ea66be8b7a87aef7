"""Start a bwrap sandbox in its own network namespace with outbound access only, through slirp4netns.

    python -m jupyter_agent.permissions.netns_launch SLIRP4NETNS BWRAP ARGS…

bwrap is started with `--unshare-net` (from its arguments), `--info-fd` (to learn the sandbox's PID) and
`--block-fd` (so the command waits); slirp4netns then gives that namespace a `tap0` with NAT to the outside and
`--disable-host-loopback`, so 127.0.0.1 of the host — the kernel's ports, the Jupyter server, local databases —
cannot be reached; only then is the command let go. Run as the command of `run_process` or a background job: it
exits with bwrap's status, stops slirp4netns when the sandbox ends, and dies with its process group on a kill.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time

NS_GET_USERNS = 0xB701  # ioctl: the user namespace that owns a namespace, as a new file descriptor
LOOPBACK_WAIT = 5.0  # seconds; bwrap sets up loopback at once, this bounds a stuck or vanished sandbox


def _child_pid(info_fd: int) -> int:
    data = b""
    while True:
        chunk = os.read(info_fd, 4096)
        if not chunk:
            raise RuntimeError("bwrap ended before it reported the sandbox's PID")
        data += chunk
        try:
            return int(json.loads(data)["child-pid"])
        except ValueError:
            continue


def _namespaces(pid: int) -> tuple[int, int] | None:
    """The sandbox's network namespace and the user namespace that owns it, opened now. Unprivileged, bwrap moves
    the sandbox into a nested user namespace during its setup (to map the user's own uid), from which
    slirp4netns cannot join the network namespace; the owner is asked of the namespace itself (NS_GET_USERNS),
    so how far the setup has got does not matter. None: not readable (slirp4netns is then given the PID)."""
    try:
        net = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
    except OSError:
        return None
    try:
        return fcntl.ioctl(net, NS_GET_USERNS), net
    except OSError:
        os.close(net)
        return None


def _wait_for_loopback(pid: int) -> None:
    """Wait until bwrap's sandbox has set up its loopback (127.0.0.1 in its namespace's routes).

    bwrap reports the sandbox's PID right after clone, before the sandbox configures `lo`; slirp4netns joining
    the namespace during that setup makes bwrap fail ("loopback: Failed RTM_NEWADDR") — measured: 8 of 60
    concurrent starts. Returns at once when the sandbox is gone or its routes cannot be read.
    """
    deadline = time.monotonic() + LOOPBACK_WAIT
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/net/fib_trie", encoding="ascii", errors="replace") as routes:
                if "127.0.0.1" in routes.read():
                    return
        except OSError:
            return
        time.sleep(0.002)


def main(argv: list[str]) -> int:
    slirp, bwrap, *args = argv
    info_read, info_write = os.pipe()
    block_read, block_write = os.pipe()
    sandbox = subprocess.Popen(
        [bwrap, "--info-fd", str(info_write), "--block-fd", str(block_read), *args],
        pass_fds=(info_write, block_read),
    )
    os.close(info_write)
    os.close(block_read)
    try:
        pid = _child_pid(info_read)
    except RuntimeError as exc:
        print(f"jupyter_agent: {exc}", file=sys.stderr)
        return sandbox.wait()
    namespaces = _namespaces(pid)  # now: bwrap may later move the sandbox into a nested user namespace
    _wait_for_loopback(pid)
    ready_read, ready_write = os.pipe()
    if namespaces is None:
        target, fds = [str(pid)], ()
    else:
        user, net = namespaces
        target, fds = (
            [f"--userns-path=/proc/self/fd/{user}", "--netns-type=path", f"/proc/self/fd/{net}"],
            namespaces,
        )
    network = subprocess.Popen(
        [
            slirp,
            "--configure",
            "--mtu=65520",
            "--disable-host-loopback",
            "--ready-fd",
            str(ready_write),
            *target,
            "tap0",
        ],
        pass_fds=(ready_write, *fds),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for fd in fds:
        os.close(fd)
    os.close(ready_write)
    if os.read(ready_read, 1) != b"1":
        print("jupyter_agent: slirp4netns did not start; the command runs without network", file=sys.stderr)
    try:
        os.write(block_write, b"1")  # the command may start now
        os.close(block_write)
    except BrokenPipeError:  # the sandbox ended during its setup; its status says why
        pass
    try:
        return sandbox.wait()
    finally:
        network.terminate()
        network.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
