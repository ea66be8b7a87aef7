"""The offline quickstart: a scripted model that finds and fixes a bug and answers one question about it, so the
whole flow (streaming, tool cards, an approval, a diff, undo, a one-line question) can be seen without an API
key. Used by notebooks/quickstart.ipynb, which runs the same way every time: in a new kernel or again in the same
one, offline unless the user set a key."""

from __future__ import annotations

import os
import py_compile
import re
import shutil
from pathlib import Path
from typing import Any

from ..agent.pricing import OFFLINE_DEMO_ENV
from ..base.harness_texts import request_text
from ..base.json_values import is_array, is_object
from .script import Text, ToolUse, Turn
from .server import TEST_API_KEY, ScriptedServer

LOADER = "demo/sales_loader.py"
BUG = "    for month in range(1, 3):\n"
FIX = "    for month in range(1, 4):\n"
LOADER_SOURCE = f'''"""Load the first quarter's sales, one CSV per month."""

import csv
from pathlib import Path


def load_quarter(folder: str) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
{BUG}        with open(Path(folder) / f"2026-{{month:02d}}.csv") as handle:
            rows.extend(csv.DictReader(handle))
    return rows
'''
#: The credentials a user may have set; either one means "talk to the real API".
USER_CREDENTIALS = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]

_demo_server: ScriptedServer | None = None


def write_demo_project(root: str | Path = ".") -> Path:
    """The small project the demo agent works on, written afresh: a loader with an off-by-one that drops March.

    Its bytecode cache is made hash-checked (PEP 552). Python's default cache trusts a .pyc whose source has the
    same size and the same mtime in whole seconds, and the fix (`range(1, 4)`) is exactly as long as the bug, so
    an edit or an undo within a second of an import would reload the stale module; a hash-checked .pyc makes
    every import and `importlib.reload` compare the source's content instead.
    """
    base = Path(root)
    path = base / LOADER
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(path.parent / "__pycache__", ignore_errors=True)
    path.write_text(LOADER_SOURCE)
    for month, total in ((1, 120), (2, 95), (3, 143)):
        (base / f"demo/2026-{month:02d}.csv").write_text(f"month,total\n{month},{total}\n")
    py_compile.compile(str(path), doraise=True, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
    return path


def start_quickstart(root: str | Path = ".") -> None:
    """The quickstart's first cell: write the demo project afresh and choose the model from what the user set.

    Offline (the scripted model) unless the user set `ANTHROPIC_API_KEY` (or `ANTHROPIC_AUTH_TOKEN`); the key this
    demo puts in the environment itself never counts, so running the notebook again in the same kernel stays
    offline. Prints which one it chose. A second run starts over: see `_start_a_fresh_agent`.
    """
    _start_a_fresh_agent()
    write_demo_project(root)
    credential = _credential_the_user_set()
    if credential is None:
        server = _start_or_reuse_demo_server()
        _point_the_client_at(server)
        print("offline demo: a scripted model on this machine answers (no ANTHROPIC_API_KEY is set)")
        return
    ran_offline_before = _demo_server is not None
    _stop_demo()
    through = os.environ.get("ANTHROPIC_BASE_URL")
    print(f"using Claude: {credential} is set{f' (through {through})' if through else ''}")
    if ran_offline_before:
        print("this kernel ran the offline demo before: restart the kernel so the agent connects to Claude")


def _start_a_fresh_agent() -> None:
    """Unload jupyter_agent if this kernel has it loaded, so the notebook's `%load_ext jupyter_agent` starts a fresh
    agent: a second run then starts over (no conversation, history or undo steps from the first, and no
    "already loaded" note) instead of continuing the first."""
    from IPython.core.getipython import get_ipython

    shell: Any = get_ipython()
    if shell is not None and "jupyter_agent" in shell.extension_manager.loaded:
        shell.extension_manager.unload_extension("jupyter_agent")


def _credential_the_user_set() -> str | None:
    """The name of a credential in the environment that the user set, not the key this demo put there."""
    demo_url = os.environ.get(OFFLINE_DEMO_ENV)
    demo_is_set = (
        demo_url is not None
        and os.environ.get("ANTHROPIC_BASE_URL") == demo_url
        and os.environ.get("ANTHROPIC_API_KEY") == TEST_API_KEY
    )
    candidates = ["ANTHROPIC_AUTH_TOKEN"] if demo_is_set else USER_CREDENTIALS
    return next((name for name in candidates if os.environ.get(name)), None)


def _start_or_reuse_demo_server() -> ScriptedServer:
    global _demo_server
    if _demo_server is None:
        _demo_server = ScriptedServer(demo_turn).start()
    return _demo_server


def _point_the_client_at(server: ScriptedServer) -> None:
    os.environ["ANTHROPIC_BASE_URL"] = server.url
    os.environ["ANTHROPIC_API_KEY"] = TEST_API_KEY
    os.environ[OFFLINE_DEMO_ENV] = server.url  # footers and `%agent status` then say nothing is billed


def _stop_demo() -> None:
    """Take back what the demo set, so the user's own settings apply."""
    global _demo_server
    demo_url = os.environ.pop(OFFLINE_DEMO_ENV, None)
    if demo_url is not None and os.environ.get("ANTHROPIC_BASE_URL") == demo_url:
        del os.environ["ANTHROPIC_BASE_URL"]
        if os.environ.get("ANTHROPIC_API_KEY") == TEST_API_KEY:
            del os.environ["ANTHROPIC_API_KEY"]
    if _demo_server is not None:
        _demo_server.stop()
        _demo_server = None


# -- the scripted model ---------------------------------------------------------------------------------------


def demo_turn(body: dict[str, Any], index: int) -> Turn:
    """The scripted model. A request to fix the loader: Read it → Edit the range (asks) → explain. Any other
    request is a question: one about the range or March is answered after reading the loader; anything else gets
    a note that this is the offline demo."""
    request = _current_request(body)
    if re.search(r"\bfix", request, re.IGNORECASE):
        return _fix_turn(_last_tool_results(body))
    if re.search(r"range|march|month", request, re.IGNORECASE):
        return _question_turn(_last_tool_results(body))
    return Turn(
        blocks=[
            Text(
                "(offline demo) I am the quickstart's scripted model: I can fix the loader and explain why it "
                "missed March, nothing else. Set `ANTHROPIC_API_KEY` before starting JupyterLab, restart the "
                "kernel, and Claude answers instead."
            )
        ]
    )


def _current_request(body: dict[str, Any]) -> str:
    """The text of the request this run answers: the newest user message that carries one (not only tool
    results or the harness's own context)."""
    for message in reversed(body["messages"]):
        if message.get("role") == "user" and (text := request_text(message.get("content"))):
            return text
    return ""


def _last_tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    last = body["messages"][-1]
    content = last.get("content")
    if last["role"] != "user" or not is_array(content):
        return []
    return [b for b in content if is_object(b) and b.get("type") == "tool_result"]


def _fix_turn(results: list[dict[str, Any]]) -> Turn:
    if not results:
        return Turn(
            blocks=[
                Text("I'll start with the loader, since March is the month that goes missing."),
                ToolUse(name="Read", input={"file_path": LOADER}),
            ]
        )
    text = str(results[-1].get("content"))
    if results[-1].get("is_error") and "DENIED" in text:
        return Turn(
            blocks=[Text("Understood — I left `sales_loader.py` unchanged. The fix would be `range(1, 4)`.")]
        )
    if "for month in range(1, 3)" in text:
        return Turn(
            blocks=[
                Text(
                    "Found it: `range(1, 3)` yields months 1 and 2 only — the end of a `range` is exclusive, "
                    "so March (3) is never loaded. I'll make the range include it."
                ),
                ToolUse(name="Edit", input={"file_path": LOADER, "old_string": BUG, "new_string": FIX}),
            ]
        )
    if "Edited" in text or "range(1, 4)" in text:
        return Turn(
            blocks=[
                Text(
                    "**Fixed.** `load_quarter` now reads January–March:\n\n"
                    "```python\nfor month in range(1, 4):\n```\n\n"
                    "(This was the offline demo; set `ANTHROPIC_API_KEY` and restart the kernel to work with "
                    "Claude.)"
                )
            ]
        )
    return Turn(
        blocks=[Text(f"(offline demo) I can only do the scripted fix; the last result was:\n\n{text[:300]}")]
    )


def _question_turn(results: list[dict[str, Any]]) -> Turn:
    if not results:
        return Turn(blocks=[ToolUse(name="Read", input={"file_path": LOADER})])
    text = str(results[-1].get("content"))
    if "for month in range(1, 3)" in text:
        answer = (
            "Because `range(1, 3)` stops *before* 3: it counts 1, 2. A `range` leaves out its end, so the loader "
            "opens `2026-01.csv` and `2026-02.csv` and never `2026-03.csv`. `range(1, 4)` would read March too — "
            "that was my fix, and the loader is back to `range(1, 3)` now, so it was undone."
        )
    elif "for month in range(1, 4)" in text:
        answer = (
            "It does not any more: the loader reads `range(1, 4)`, which counts 1, 2, 3. Before the fix it said "
            "`range(1, 3)`, which stops *before* 3 — a `range` leaves out its end — so March was never loaded."
        )
    else:
        answer = f"(offline demo) I expected the loader's `range`, but it reads:\n\n{text[:300]}"
    return Turn(blocks=[Text(answer)])
