"""Scripted trajectories: a data-analysis request, the cells it starts from, and the calls a good model makes.

Used by the kernel tests (tests/kernel/test_model_view_trajectories.py) and by benchmarks/model_view_bench.py.
One kernel and one scripted server serve every trajectory in turn (`TrajectoryKernel`): the notebook page is
reset, the setup cells run for real (their outputs are written into the page as JupyterLab would), and
`%%agent --new` starts a fresh conversation. A model turn is a list of blocks, or a function of the request it
answers (the scripted model reads what it was shown, e.g. the id an error names).

What the model was shown is measured with the scripted server's own estimator (`block_tokens`: one token per 4
characters of compact JSON, images by their pixels), so the recorded baseline and a fresh run are counted alike.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from frontend import Execution, KernelFrontend, result_text
from notebook_page import NotebookPage

from jupyter_agent.notebook.cells import new_cell_json
from jupyter_agent.testing import TEST_API_KEY, Block, ScriptedServer, Text, ToolUse, Turn
from jupyter_agent.testing.strict.canonical import block_tokens

ROOT = Path(__file__).resolve().parents[2]

#: Which calls a trajectory makes: today's contracts ("baseline", as recorded) or the issue's ("new").
Variant = Literal["baseline", "new"]
TurnMaker = Sequence[Block] | Callable[[dict[str, Any]], Sequence[Block]]
Driver = Callable[[KernelFrontend, Execution], None]

#: Text that is the package's own machinery, never something the model should read.
INTERNALS = (
    "RuntimeError: an agent run is already in progress",
    "while a run is in progress",
    "Button(",
    "[rich output with no text form",
    'Traceback (most recent call last):\n  File "/',  # a traceback into the package's files
)


@dataclass(frozen=True, kw_only=True)
class Trajectory:
    name: str
    request: str
    #: (id, source) of the notebook's cells before the run; code cells run in this order before the agent.
    cells: Sequence[tuple[str, str]]
    #: The model's turns per variant; the final answer ("new" when a variant is missing).
    turns: dict[Variant, Sequence[TurnMaker]]
    mode: str = "bypassPermissions"
    #: Clicks what a user clicks while the run waits; None: nothing to click.
    drive: Driver | None = None
    markdown: frozenset[str] = frozenset()
    #: Setup cells left unrun (their outputs empty).
    unrun: frozenset[str] = frozenset()

    def turns_of(self, variant: Variant) -> Sequence[TurnMaker]:
        return self.turns.get(variant) or self.turns["new"]


@dataclass(kw_only=True)
class Run:
    """What one trajectory showed the model and left behind."""

    trajectory: Trajectory
    requests: list[dict[str, Any]]
    cells_before: list[dict[str, Any]]
    cells_after: list[dict[str, Any]]
    execution: Execution
    calls: int
    frontend: KernelFrontend

    def results(self) -> list[list[dict[str, Any]]]:
        """The tool_result blocks of each step (each request that answers calls), in order."""
        return step_results(self.requests)

    def texts(self) -> list[str]:
        return [result_text(block) for step in self.results() for block in step]

    def cell(self, cell_id: str, *, before: bool = False) -> dict[str, Any]:
        cells = self.cells_before if before else self.cells_after
        return next(c for c in cells if c["id"] == cell_id)

    def value(self, expression: str) -> Any:
        """`expression` evaluated in the kernel, as JSON."""
        out = self.frontend.run(f"import json as _j; print('VALUE', _j.dumps({expression}))").text()
        line = next(line for line in out.splitlines() if line.startswith("VALUE "))
        return json.loads(line.removeprefix("VALUE "))


def step_results(requests: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    steps: list[list[dict[str, Any]]] = []
    for body in requests:
        content = body["messages"][-1]["content"]
        blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        if blocks and body["messages"][-1]["role"] == "user":
            steps.append(blocks)
    return steps


def last_text(body: dict[str, Any]) -> str:
    """What the last message's tool results said, joined: what the scripted model reads before its next call."""
    content = body["messages"][-1]["content"]
    parts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            inner = block.get("content", [])
            parts.extend(p.get("text", "") for p in inner if isinstance(p, dict)) if isinstance(
                inner, list
            ) else parts.append(str(inner))
    return "\n".join(parts)


def id_named(pattern: str, fallback: str) -> Callable[[dict[str, Any]], str]:
    """Reads the cell id the last result names (`pattern` has one group), else `fallback`."""

    def read(body: dict[str, Any]) -> str:
        found = re.search(pattern, last_text(body))
        return found.group(1) if found else fallback

    return read


# -- measuring -------------------------------------------------------------------------------------------------


def prefix_tokens(body: dict[str, Any]) -> int:
    """The fixed prefix the model reads first: the system prompt and the tool definitions."""
    return block_tokens({"system": body.get("system"), "tools": body.get("tools")})


def view_of(requests: Sequence[dict[str, Any]], calls: int) -> dict[str, Any]:
    """What a baseline file keeps of a run: the prefix and each step's results, as sent."""
    first = requests[0]
    return {
        "prefix": {"system": first.get("system"), "tools": first.get("tools")},
        "steps": step_results(requests),
        "calls": calls,
    }


@dataclass(frozen=True, kw_only=True)
class Figures:
    prefix: int
    step_tokens: tuple[int, ...]
    calls: int

    @property
    def median(self) -> float:
        return statistics.median(self.step_tokens) if self.step_tokens else 0.0

    @property
    def max(self) -> int:
        return max(self.step_tokens, default=0)


def figures(view: dict[str, Any]) -> Figures:
    """Tokens of a view (recorded or fresh) by one estimator."""
    return Figures(
        prefix=block_tokens(view["prefix"]),
        step_tokens=tuple(sum(block_tokens(b) for b in step) for step in view["steps"]),
        calls=view["calls"],
    )


# -- running ---------------------------------------------------------------------------------------------------


def nb_outputs(execution: Execution) -> list[dict[str, Any]]:
    """The iopub outputs of a setup cell as nbformat outputs, as JupyterLab writes them into the cell."""
    outputs: list[dict[str, Any]] = []
    for msg in execution.outputs:
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            outputs.append({"output_type": "stream", "name": content["name"], "text": content["text"]})
        elif kind in ("display_data", "execute_result"):
            out = {"output_type": kind, "data": content["data"], "metadata": content.get("metadata", {})}
            if kind == "execute_result":
                out["execution_count"] = content["execution_count"]
            outputs.append(out)
        elif kind == "error":
            outputs.append(
                {
                    "output_type": "error",
                    "ename": content["ename"],
                    "evalue": content["evalue"],
                    "traceback": content["traceback"],
                }
            )
    return outputs


class TrajectoryKernel:
    """One kernel, one page and one scripted server for many trajectories, run one after another."""

    def __init__(self, cwd: Path) -> None:
        self._turns: list[TurnMaker] = []
        self.calls = 0
        self.server = ScriptedServer(self._answer).start()
        self._first = 0
        env = {
            "PYTHONPATH": str(ROOT),
            "ANTHROPIC_BASE_URL": self.server.url,
            "ANTHROPIC_API_KEY": TEST_API_KEY,
            "JPY_SESSION_NAME": str(cwd / "analysis.ipynb"),
            "JUPYTER_DATA_DIR": str(cwd / "jupyter-data"),
        }
        self.frontend = KernelFrontend(cwd, env=env)
        loaded = self.frontend.run("%load_ext jupyter_agent\n%matplotlib inline")
        assert loaded.reply is not None and loaded.reply["status"] == "ok", loaded.text()
        self.page = NotebookPage(self.frontend)

    def close(self) -> None:
        self.frontend.close()
        self.server.stop()

    def _answer(self, body: dict[str, Any], index: int) -> Turn:
        if not self._turns:
            return Turn(blocks=[Text("Done.")])
        maker = self._turns.pop(0)
        blocks = list(maker(body) if callable(maker) else maker)
        self.calls += sum(isinstance(b, ToolUse) for b in blocks)
        return Turn(blocks=blocks)

    def run(self, trajectory: Trajectory, variant: Variant = "new", timeout: float = 90) -> Run:
        cells: list[dict[str, Any]] = []
        for cell_id, source in trajectory.cells:
            kind = "markdown" if cell_id in trajectory.markdown else "code"
            cells.append(new_cell_json(kind, source, cell_id=cell_id))
        agent_source = f"%%agent --new --mode {trajectory.mode}\n{trajectory.request}"
        cells.append(new_cell_json("code", agent_source, cell_id="agent"))
        self.page.cells = cells
        for cell in cells[:-1]:
            if cell["cell_type"] != "code" or cell["id"] in trajectory.unrun:
                continue
            done = self.frontend.run(cell["source"], cell_id=cell["id"])
            assert done.reply is not None, cell["id"]
            at = next(i for i, c in enumerate(self.page.cells) if c["id"] == cell["id"])
            self.page.cells[at] = {
                **self.page.cells[at],
                "outputs": nb_outputs(done),
                "execution_count": done.reply.get("execution_count"),
            }
        before = json.loads(json.dumps(self.page.cells))
        self._turns = list(trajectory.turns_of(variant))
        self.calls = 0
        self._first = len(self.server.requests)
        execution = self.frontend.execute(agent_source, cell_id="agent")
        if trajectory.drive is not None:
            trajectory.drive(self.frontend, execution)
        self.frontend.wait(lambda: execution.done, timeout, f"trajectory {trajectory.name}")
        return Run(
            trajectory=trajectory,
            requests=self.server.requests[self._first :],
            cells_before=before,
            cells_after=json.loads(json.dumps(self.page.cells)),
            execution=execution,
            calls=self.calls,
            frontend=self.frontend,
        )


def answer(text: str) -> list[Block]:
    return [Text(text)]


def call(tool: str, /, **inputs: Any) -> list[Block]:
    return [ToolUse(name=tool, input=inputs)]


def calls(*uses: tuple[str, dict[str, Any]]) -> list[Block]:
    return [ToolUse(name=name, input=inputs) for name, inputs in uses]


__all__ = [
    "INTERNALS",
    "Figures",
    "Run",
    "Trajectory",
    "TrajectoryKernel",
    "Variant",
    "answer",
    "call",
    "calls",
    "figures",
    "id_named",
    "last_text",
    "prefix_tokens",
    "view_of",
]
