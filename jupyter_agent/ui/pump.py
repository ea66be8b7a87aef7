"""Handle widget clicks and comm replies while a cell blocks the kernel's main thread.

The one module that touches ipykernel internals (see shared notes `kernel-waits.md`). In ipykernel 7 the
shell-channel thread forwards every shell message to the main thread over an inproc PAIR socket. While a
`%%agent` cell runs we read that socket ourselves: comm messages (widget clicks, the notebook bridge's
replies) are dispatched at once; everything else (queued `execute_request`s of Run All, completions) is
kept and re-queued in arrival order when the wait ends, so later cells still run in order.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

#: ipykernel versions whose internals this module was written and tested against.
SUPPORTED = ((7, 0), (7, 4))
_COMM_TYPES = frozenset({"comm_open", "comm_msg", "comm_close"})
_REQUEUED: set[asyncio.Future[Any]] = set()


def _version_tuple(text: str) -> tuple[int, int]:
    parts = text.split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return (0, 0)


def unsupported_reason(kernel: Any) -> str | None:
    """Why this kernel can't be pumped, or None when it can."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        installed = package_version("ipykernel")
    except PackageNotFoundError:
        return "ipykernel is not installed"
    version = _version_tuple(installed)
    if not SUPPORTED[0] <= version <= SUPPORTED[1]:
        low, high = (".".join(map(str, v)) for v in SUPPORTED)
        return (
            f"ipykernel {installed} is not supported for in-cell approvals "
            f"(tested {low}–{high}.x); approvals fall back to the mode's defaults"
        )
    if kernel is None:
        return "no ipykernel kernel is running (terminal IPython?)"
    try:
        kernel.shell_channel_thread.manager._shell_channel_to_main.to_socket  # noqa: B018
    except AttributeError:
        return "this ipykernel has no shell-channel thread (internals changed); approvals fall back"
    return None


@dataclass
class ShellPump:
    """Reads the main shell socket while a cell runs; see the module docstring."""

    kernel: Any
    deferred: list[list[Any]] = field(default_factory=list[list[Any]])
    dispatched: int = 0

    @classmethod
    def for_kernel(cls, kernel: Any) -> ShellPump | None:
        reason = unsupported_reason(kernel)
        if reason:
            log.info("jupyter_agent: %s", reason)
            return None
        return cls(kernel)

    @property
    def _socket(self) -> Any:
        return self.kernel.shell_channel_thread.manager._shell_channel_to_main.to_socket

    def pump(self, timeout: float) -> int:
        """Wait up to `timeout` seconds for shell messages, handle what arrived, return how many comm messages ran.

        Returns as soon as something was handled, so callers can check their own condition promptly.
        """
        import zmq

        sock = self._socket
        handled = 0
        if not sock.poll(int(timeout * 1000), zmq.POLLIN):
            return 0
        while sock.poll(0, zmq.POLLIN):
            frames = sock.recv_multipart(copy=False)
            if self._msg_type(frames) in _COMM_TYPES:
                self._dispatch(frames)
                handled += 1
            else:
                self.deferred.append(frames)
        self.dispatched += handled
        return handled

    def _msg_type(self, frames: list[Any]) -> str | None:
        session = self.kernel.session
        try:
            _, msg = session.feed_identities(frames, copy=False)
            return session.deserialize(msg, content=False, copy=False)["header"]["msg_type"]
        except Exception:  # the b"stop aborting" sentinel and anything undecodable: keep, don't drop
            return None

    def _dispatch(self, frames: list[Any]) -> None:
        kernel = self.kernel
        ident = kernel._get_shell_context_var(kernel._shell_parent_ident)
        parent = kernel.get_parent("shell")
        try:
            coro = kernel.dispatch_shell(frames, subshell_id=None)
            context = contextvars.copy_context()
            try:
                context.run(coro.send, None)
            except StopIteration:
                pass
            else:  # a handler awaited something real: finish it later on the kernel's loop
                log.warning("jupyter_agent: a comm handler did not finish synchronously")
                coro.close()
        except Exception:
            log.exception("jupyter_agent: dispatching a comm message failed")
        finally:
            # Later output must still go to the running cell, not to the comm message's parent.
            kernel.set_parent(ident, parent, channel="shell")

    def finish(self) -> None:
        """Hand the kept messages back to the kernel in arrival order; they run after the current cell."""
        frames_list, self.deferred = self.deferred, []
        for frames in frames_list:
            task = asyncio.ensure_future(self.kernel.shell_main(None, frames))
            _REQUEUED.add(task)  # the loop keeps only weak references to tasks
            task.add_done_callback(_REQUEUED.discard)
