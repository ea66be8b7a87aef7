"""Handle widget clicks and comm replies while a cell blocks the kernel's main thread.

The one module that touches ipykernel internals. In ipykernel 7 the shell-channel thread forwards every
shell message to the main thread over an inproc PAIR socket (`_shell_channel_to_main`). The kernel's own
reader of that socket is a ZMQStream on the main thread's event loop: for each message it calls its
receive callback, which starts a task that starts `shell_main`, which takes the main shell's
`asyncio.Lock` (first come, first served) and dispatches. While a `%%agent` cell runs we read that socket
ourselves: comm messages (widget clicks, the notebook bridge's replies) are dispatched at once; everything
else (queued `execute_request`s of Run All, completions) is held and handed back when the wait ends.

Why the queued cells keep notebook order:

1. While we pump, the main thread is inside the cell, so the event loop, and with it the kernel's reader,
   does not run. A message is therefore either (a) taken by the reader before the cell started blocking —
   earlier than everything we hold — or (b) read by us, or (c) still in the socket when we stop. `finish`
   reads (c) too, so everything that arrived by then is either (a) or in our hands, in arrival order; what
   arrives later is read by the reader after the cell.
2. `finish` hands the held messages to the reader's own receive callback, in arrival order, exactly as the
   reader would have. Every message thus takes the same path, with the same number of event-loop steps to
   the lock. asyncio runs ready steps first in, first out, so tasks started earlier reach the lock
   earlier (a message of kind (a) is started, and often advanced, before ours), and the lock serves its
   waiters in the order they asked. So the cells run in the order they arrived.

Re-queueing with a fresh `shell_main` task instead breaks this: it reaches the lock one step sooner than
a message the reader took just before the cell blocked, so the cell right after the agent cell ran last.

Each pumped comm message gets ipykernel's busy/idle status pair (ipywidgets waits for that idle), after
which we publish `busy` again for the running cell: frontends show the last status they received as the
kernel's state, and the kernel is busy until the cell ends.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import logging
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..base.distribution import DISTRIBUTION

log = logging.getLogger(__name__)

_COMM_TYPES = frozenset({"comm_open", "comm_msg", "comm_close"})
#: Where `Kernel.pre_handler_hook` keeps the SIGINT handler of the idle kernel (ipykernel 7.0–7.4).
_SAVED_SIGINT = "saved_sigint_handler"


def _main_pair(kernel: Any) -> Any:
    return kernel.shell_channel_thread.manager._shell_channel_to_main


def _has_socket(kernel: Any) -> bool:
    sock = _main_pair(kernel).to_socket
    return callable(sock.poll) and callable(sock.recv_multipart)


def _has_reader(kernel: Any) -> bool:
    stream = _main_pair(kernel).to_stream
    return callable(stream._recv_callback) and callable(stream._run_callback)


def _has_dispatch(kernel: Any) -> bool:
    parameters = inspect.signature(kernel.dispatch_shell).parameters
    return "subshell_id" in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())


def _has_session(kernel: Any) -> bool:
    return callable(kernel.session.feed_identities) and callable(kernel.session.deserialize)


def _shell_ident(kernel: Any) -> Any:
    """The running cell's shell identity. `_parent_ident["shell"]` is the accessor ipykernel 7.0–7.4 all keep
    (7.0.0 has no `_get_shell_context_var`, which 7.4 reads it with)."""
    return kernel._parent_ident["shell"]


def _has_parent(kernel: Any) -> bool:
    _shell_ident(kernel)  # raises when the accessor is gone
    return callable(kernel.get_parent) and callable(kernel.set_parent) and callable(kernel._publish_status)


#: The ipykernel internals this module uses, each checked by presence (not by version): what a user is
#: told is missing, and the check. Written against ipykernel 7.0–7.4; CI runs the oldest and the newest.
INTERNALS: tuple[tuple[str, Callable[[Any], bool]], ...] = (
    ("the main shell socket (shell_channel_thread.manager._shell_channel_to_main.to_socket)", _has_socket),
    ("the main shell reader (…_shell_channel_to_main.to_stream._recv_callback / _run_callback)", _has_reader),
    ("kernel.dispatch_shell(…, subshell_id=…)", _has_dispatch),
    ("kernel.session.feed_identities / deserialize", _has_session),
    (
        "the shell parent (kernel._parent_ident['shell'], get_parent, set_parent, _publish_status)",
        _has_parent,
    ),
)


def missing_internals(kernel: Any) -> list[str]:
    """The internals in `INTERNALS` this kernel does not have, in order."""
    missing: list[str] = []
    for name, present in INTERNALS:
        try:
            ok = present(kernel)
        except (AttributeError, LookupError, TypeError, ValueError):
            ok = False
        if not ok:
            missing.append(name)
    return missing


def ipykernel_version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        return package_version("ipykernel")
    except PackageNotFoundError:
        return "(not installed)"


def unsupported_reason(kernel: Any) -> str | None:
    """Why a cell that waits cannot receive clicks and comm replies in this kernel (None when it can): exactly
    which internal is missing, with the version, for the user and the model."""
    if kernel is None:
        return "no ipykernel kernel is running (terminal IPython?)"
    missing = missing_internals(kernel)
    if not missing:
        return None
    return (
        f"in-cell approvals and live notebook edits need ipykernel internals that ipykernel {ipykernel_version()} "
        f"does not have ({'; '.join(missing)}), so nothing can be clicked or answered while a cell runs; "
        f"a {DISTRIBUTION} release that supports this ipykernel fixes it"
    )


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
    def _pair(self) -> Any:
        return _main_pair(self.kernel)

    def _read_available(self) -> Iterator[list[Any]]:
        """Every message waiting in the main shell socket now, oldest first."""
        import zmq

        sock = self._pair.to_socket
        while sock.poll(0, zmq.POLLIN):
            yield sock.recv_multipart(copy=False)

    def pump(self, timeout: float) -> int:
        """Wait up to `timeout` seconds for shell messages, handle what arrived, return how many comm messages ran.

        Returns as soon as something was handled, so callers can check their own condition promptly.
        """
        import zmq

        handled = 0
        if not self._pair.to_socket.poll(int(timeout * 1000), zmq.POLLIN):
            return 0
        for frames in self._read_available():
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
        ident = _shell_ident(kernel)
        parent = kernel.get_parent("shell")
        # `dispatch_shell` keeps the SIGINT handler it replaces in one attribute, which the running cell's own
        # dispatch set: nested, it would overwrite it with the cell's handler, and the idle kernel would be left
        # raising KeyboardInterrupt on an Interrupt that comes between cells (its event loop then stops).
        outer_handler = getattr(kernel, _SAVED_SIGINT, None)
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
            if outer_handler is not None:
                setattr(kernel, _SAVED_SIGINT, outer_handler)
            # Later output (background threads included) must still go to the running cell, not to the comm
            # message's parent; and the frontend must see the kernel busy again after the message's idle.
            kernel.set_parent(ident, parent, channel="shell")
            if parent.get("header", {}).get("msg_id"):
                kernel._publish_status("busy", "shell", parent)

    @contextlib.contextmanager
    def parent_for(self, parent: Any) -> Generator[None]:
        """Between cells (an outside call's turn, `serve/turns.py`): output, and the status the pump publishes,
        go to `parent` (the `%agent serve` cell) while inside; after, the frontend sees the kernel idle again
        if a pumped message said busy, and the kernel's own parent is back."""
        kernel = self.kernel
        ident, before = _shell_ident(kernel), kernel.get_parent("shell")
        kernel.set_parent(ident, parent, channel="shell")
        dispatched = self.dispatched
        try:
            yield
        finally:
            if self.dispatched != dispatched and parent.get("header", {}).get("msg_id"):
                kernel._publish_status("idle", "shell", parent)
            kernel.set_parent(ident, before, channel="shell")

    def finish(self) -> None:
        """Hand every held and still unread message to the kernel's reader, in arrival order (module docstring).

        They run after the current cell, in the order they were sent.
        """
        self.deferred.extend(self._read_available())
        frames_list, self.deferred = self.deferred, []
        stream = self._pair.to_stream
        for frames in frames_list:
            stream._run_callback(stream._recv_callback, frames)
