"""A jupyter_client stand-in for the labextension's side of the notebook comm (used by tests and benchmarks).

It answers `comm_open` on `jupyter_agent.notebook` with a hello, and each request with one result per op,
applying the ops to an in-memory cell list with the rules the extension follows
(`jupyter_agent.notebook.apply` mirrors labextension/src/ops.ts). The real extension is TypeScript and
is exercised by the e2e tests in JupyterLab.
"""

from __future__ import annotations

from typing import Any

from frontend import KernelFrontend

from jupyter_agent.notebook.apply import apply_ops
from jupyter_agent.notebook.bridge import COMM_TARGET
from jupyter_agent.notebook.cells import new_cell_json
from jupyter_agent.notebook.ops import op_from_wire


class NotebookPage:
    def __init__(self, frontend: KernelFrontend, *, path: str = "analysis.ipynb") -> None:
        self.frontend = frontend
        self.path = path
        self.cells: list[dict[str, Any]] = [new_cell_json("code", "a = 1", cell_id="a1")]
        self.comm_ids: list[str] = []
        self.requests = 0
        frontend.serve(COMM_TARGET, self._open)

    def _open(self, comm_id: str, data: dict[str, Any]) -> None:
        self.comm_ids.append(comm_id)
        self.frontend.comm_handlers[comm_id] = lambda msg: self._handle(comm_id, msg)
        hello = {"type": "hello", "path": self.path, "protocol": 1, "client_id": "test-page"}
        self.frontend.send_comm(comm_id, hello)

    def _handle(self, comm_id: str, data: dict[str, Any]) -> None:
        if data.get("type") != "request":
            return
        self.requests += 1
        ops = [op_from_wire(raw) for raw in data["ops"]]
        applied = apply_ops(self.cells, ops, name=self.path)
        results = [result.to_wire(path=self.path) for result in applied.results]
        self.frontend.send_comm(
            comm_id, {"type": "response", "request_id": data["request_id"], "results": results}
        )
