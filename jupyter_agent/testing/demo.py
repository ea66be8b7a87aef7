"""The offline quickstart: a scripted model that finds and fixes a bug, so the whole flow (streaming,
tool cards, an approval, a diff) can be seen without an API key. Used by notebooks/quickstart.ipynb."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..agent.pricing import OFFLINE_DEMO_ENV
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


def write_demo_project(root: str | Path = ".") -> Path:
    """The small project the demo agent works on: a loader with an off-by-one that drops March."""
    base = Path(root)
    path = base / LOADER
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(LOADER_SOURCE)
    for month, total in ((1, 120), (2, 95), (3, 143)):
        (base / f"demo/2026-{month:02d}.csv").write_text(f"month,total\n{month},{total}\n")
    return path


def _last_tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    last = body["messages"][-1]
    content = last.get("content")
    if last["role"] != "user" or not is_array(content):
        return []
    return [b for b in content if is_object(b) and b.get("type") == "tool_result"]


def demo_turn(body: dict[str, Any], index: int) -> Turn:
    """The scripted model: Read the loader → Edit the range → explain. Denials and repeats are answered too."""
    results = _last_tool_results(body)
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
                    "Re-run the loader cell to see all three months. (This was the offline demo; set "
                    "`ANTHROPIC_API_KEY` and restart the kernel to work with Claude.)"
                )
            ]
        )
    return Turn(
        blocks=[Text(f"(offline demo) I can only do the scripted fix; the last result was:\n\n{text[:300]}")]
    )


def start_demo_server() -> ScriptedServer:
    """Start the scripted model and point this process's Anthropic client at it."""
    server = ScriptedServer(demo_turn).start()
    os.environ["ANTHROPIC_BASE_URL"] = server.url
    os.environ["ANTHROPIC_API_KEY"] = TEST_API_KEY
    os.environ[OFFLINE_DEMO_ENV] = server.url  # footers and `%agent status` then say nothing is billed
    return server
