"""A minimal Jupyter frontend for kernel tests: a real ipykernel driven over ZMQ with jupyter_client.

It records iopub, emulates what JupyterLab's widget manager does that our code relies on (jslink echoes,
button clicks as `custom` comm messages), and can answer the notebook bridge's comm like the labextension.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_client.manager import KernelManager

from jupyter_agent.base.harness_texts import told_texts


@dataclass
class Widget:
    comm_id: str
    model: str
    state: dict[str, Any]
    #: What the kernel has taken from this frontend: ipywidgets echoes each update it handles.
    echoed: dict[str, Any] = field(default_factory=dict[str, Any])


@dataclass
class Execution:
    msg_id: str
    outputs: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    reply: dict[str, Any] | None = None
    idle: bool = False

    @property
    def done(self) -> bool:
        """Idle on iopub and the execute_reply received: everything this cell will say has arrived."""
        return self.idle and self.reply is not None

    def text(self) -> str:
        """Every text/plain and stream text this cell produced, updates included, in order."""
        parts: list[str] = []
        for msg in self.outputs:
            content = msg["content"]
            if msg["msg_type"] == "stream":
                parts.append(content["text"])
            elif msg["msg_type"] in ("display_data", "update_display_data", "execute_result"):
                parts.append(content.get("data", {}).get("text/plain", ""))
            elif msg["msg_type"] == "error":
                parts.append("\n".join(content["traceback"]))
        return "\n".join(parts)

    def html(self) -> str:
        return "\n".join(
            m["content"].get("data", {}).get("text/html", "")
            for m in self.outputs
            if m["msg_type"] in ("display_data", "update_display_data", "execute_result")
        )


class KernelFrontend:
    """`allow_stdin` is what the frontend says in each execute request: JupyterLab and VS Code say True,
    nbclient (papermill, nbconvert, voila) False — which is how the kernel knows a headless client."""

    def __init__(
        self, cwd: Path, env: dict[str, str] | None = None, *, widgets: bool = True, allow_stdin: bool = True
    ) -> None:
        self.widgets_enabled = widgets
        self.allow_stdin = allow_stdin
        self.cwd = cwd
        # IPC sockets in a directory of this kernel's own: with TCP, a port jupyter_client found free could be
        # taken by another test's kernel before this one bound it ("Address already in use"), under xdist.
        self._sockets = tempfile.mkdtemp(prefix="ja-kernel-")  # short: a socket path has at most 107 bytes
        self.km = KernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(self._sockets, "k"))
        # Saved sessions stay in the test unless the test chose a data dir.
        kernel_env = {**os.environ, "JUPYTER_DATA_DIR": str(cwd / "jupyter-data"), **(env or {})}
        self.km.start_kernel(cwd=str(cwd), env=kernel_env)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)
        self.widgets: dict[str, Widget] = {}
        #: The comm ids the kernel closed (widgets included: they stay in `widgets`, for a look at what was shown).
        self.closed: set[str] = set()
        self.links: list[tuple[tuple[str, str], tuple[str, str]]] = []
        self.executions: dict[str, Execution] = {}
        self.iopub_log: list[dict[str, Any]] = []
        self.comm_handlers: dict[str, Callable[[dict[str, Any]], None]] = {}
        self.comm_targets: dict[str, Callable[[str, dict[str, Any]], None]] = {}
        #: Comms the kernel opened to a target no one here serves yet, by target: `serve` answers them.
        self.unserved: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        #: Every shell reply by the msg_id of its request (execute, complete, inspect, ...).
        self.replies: dict[str, dict[str, Any]] = {}

    def close(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)
        shutil.rmtree(self._sockets, ignore_errors=True)

    # -- running ----------------------------------------------------------------------------------------
    def execute(self, code: str, *, cell_id: str | None = None) -> Execution:
        """Send an execute request; `cell_id` goes into its metadata as `cellId`, as JupyterLab and VS Code send it."""
        content = {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": self.allow_stdin,
            "stop_on_error": True,
        }
        message = self.kc.session.msg(
            "execute_request", content, metadata={"cellId": cell_id} if cell_id is not None else {}
        )
        self.kc.shell_channel.send(message)
        execution = Execution(message["header"]["msg_id"])
        self.executions[execution.msg_id] = execution
        return execution

    def run(self, code: str, timeout: float = 60, *, cell_id: str | None = None) -> Execution:
        execution = self.execute(code, cell_id=cell_id)
        self.wait(lambda: execution.done, timeout, f"cell did not finish: {code[:80]!r}")
        return execution

    def wait(self, condition: Callable[[], bool], timeout: float = 30, what: str = "condition") -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                recent = [
                    (
                        m["msg_type"],
                        m["content"].get("ename")
                        or m["content"].get("execution_state")
                        or str(m["content"].get("text", ""))[-300:],  # a stream says what it printed
                    )
                    for m in self.iopub_log[-8:]
                ]
                raise TimeoutError(f"timed out waiting for {what}; last iopub messages: {recent}")
            self.poll(0.05)

    def poll(self, timeout: float) -> None:
        try:
            msg = self.kc.get_iopub_msg(timeout=timeout)
        except queue.Empty:
            msg = None
        while msg is not None:
            self._on_iopub(msg)
            try:
                msg = self.kc.get_iopub_msg(timeout=0)
            except queue.Empty:
                msg = None
        while True:
            try:
                reply = self.kc.get_shell_msg(timeout=0)
            except queue.Empty:
                break
            parent = reply["parent_header"].get("msg_id")
            self.replies[parent] = reply
            if parent in self.executions:
                self.executions[parent].reply = reply["content"]

    def _on_iopub(self, msg: dict[str, Any]) -> None:
        self.iopub_log.append(msg)
        msg_type = msg["msg_type"]
        content = msg["content"]
        parent = msg["parent_header"].get("msg_id")
        execution = self.executions.get(parent)
        if execution is not None:
            if msg_type in ("stream", "display_data", "update_display_data", "execute_result", "error"):
                execution.outputs.append(msg)
            elif msg_type == "status" and content["execution_state"] == "idle":
                execution.idle = True
        if msg_type == "comm_open":
            self._comm_open(content)
        elif msg_type == "comm_msg":
            self._comm_msg(content)
        elif msg_type == "comm_close":
            self.closed.add(content["comm_id"])

    # -- comms, as a widget manager would handle them -----------------------------------------------------
    def _comm_open(self, content: dict[str, Any]) -> None:
        target = content["target_name"]
        if target == "jupyter.widget" and self.widgets_enabled:
            state = content["data"]["state"]
            widget = Widget(content["comm_id"], state.get("_model_name", ""), dict(state))
            self.widgets[widget.comm_id] = widget
            if widget.model == "LinkModel":
                (src, src_attr), (dst, dst_attr) = state["source"], state["target"]
                self.links.append(
                    ((src.removeprefix("IPY_MODEL_"), src_attr), (dst.removeprefix("IPY_MODEL_"), dst_attr))
                )
        elif target in self.comm_targets:
            self.comm_targets[target](content["comm_id"], content.get("data", {}))
        else:
            self.unserved.setdefault(target, []).append((content["comm_id"], content.get("data", {})))

    def _comm_msg(self, content: dict[str, Any]) -> None:
        comm_id = content["comm_id"]
        data = content["data"]
        if comm_id in self.comm_handlers:
            self.comm_handlers[comm_id](data)
            return
        widget = self.widgets.get(comm_id)
        if widget is not None and data.get("method") == "echo_update":
            widget.echoed.update(data["state"])
            return
        if widget is None or data.get("method") != "update":
            return
        widget.state.update(data["state"])
        for (src, attr), (dst, dst_attr) in self.links:  # jslink: the browser copies the value across
            if src == comm_id and attr in data["state"]:
                self.send_comm(
                    dst, {"method": "update", "state": {dst_attr: data["state"][attr]}, "buffer_paths": []}
                )

    def serve(self, target: str, on_open: Callable[[str, dict[str, Any]], None]) -> None:
        """Answer comms opened to `target` from now on, and those the kernel opened before: a page is there
        before the kernel's `%load_ext` (the test only got to it later)."""
        self.poll(0)
        self.comm_targets[target] = on_open
        for comm_id, data in self.unserved.pop(target, []):
            if comm_id not in self.closed:
                on_open(comm_id, data)

    def send_comm(self, comm_id: str, data: dict[str, Any]) -> None:
        msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        self.kc.shell_channel.send(msg)

    def close_comm(self, comm_id: str) -> None:
        """What a frontend without the comm's target does: it closes the comm at once."""
        self.kc.shell_channel.send(self.kc.session.msg("comm_close", {"comm_id": comm_id, "data": {}}))

    def live_widgets(self) -> list[Widget]:
        """The widget models the kernel opened and has not closed: what a widget manager holds (and saves)."""
        return [w for w in self.widgets.values() if w.comm_id not in self.closed]

    def buttons(self, description: str) -> list[Widget]:
        return [
            w for w in self.widgets.values()
            if w.model == "ButtonModel" and w.state.get("description") == description
        ]  # fmt: skip

    def click(self, description: str, timeout: float = 30) -> None:
        """Click the newest button with this label, waiting for it to appear."""
        self.wait(lambda: bool(self.buttons(description)), timeout, f"a {description!r} button")
        self.send_comm(
            self.buttons(description)[-1].comm_id, {"method": "custom", "content": {"event": "click"}}
        )

    def set_text(self, placeholder_contains: str, value: str, timeout: float = 30) -> None:
        """Type into a text widget; returns once the kernel has the value (its echo arrived)."""
        found = [
            w for w in self.widgets.values()
            if w.model == "TextModel" and placeholder_contains in w.state.get("placeholder", "")
        ]  # fmt: skip
        if not found:
            raise LookupError(f"no text widget with placeholder containing {placeholder_contains!r}")
        widget = found[0]
        self.send_comm(widget.comm_id, {"method": "update", "state": {"value": value}, "buffer_paths": []})
        self.wait(lambda: widget.echoed.get("value") == value, timeout, f"the kernel to take {value!r}")


#: The `agent_kernel` fixture (conftest.py): `agent_kernel(script, widgets=True)` → (frontend, model server).
AgentKernel = Callable[..., tuple["KernelFrontend", Any]]


def new_id() -> str:
    return uuid.uuid4().hex


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of a recorded request's last message."""
    return [
        b
        for b in request["messages"][-1]["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]


def result_text(block: dict[str, Any]) -> str:
    return "".join(part["text"] for part in block["content"] if part["type"] == "text")


def context_text(request: dict[str, Any]) -> str:
    """Every session context and update the harness put in a recorded request's messages, joined: the facts
    (notebook, kernel, mode, tools) are told there, not in the system prompt."""
    return "\n".join(told_texts(request["messages"]))


def outcome_of(text: str) -> dict[str, Any]:
    """The JSON a test cell printed after `OUTCOME ` (what it saw inside the kernel)."""
    line = next(line for line in text.splitlines() if line.startswith("OUTCOME "))
    return json.loads(line.removeprefix("OUTCOME "))
