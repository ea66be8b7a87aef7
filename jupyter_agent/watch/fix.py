"""`%agent fix`: the request that asks the agent to explain and fix the user's last error."""

from __future__ import annotations

from ..builtin_tools.kernel.tracebacks import describe_exception, users_last_exception
from .watcher import CellRun

FIX_INSTRUCTIONS = (
    "The cell below raised an exception. Explain briefly what went wrong and why, then fix it: edit the "
    "failing cell (NotebookEdit, by its cell id) or the file the error comes from, and say what you changed. "
    "Use Debug to look at the frames' local variables if the traceback is not enough."
)


def fix_request(failed: CellRun | None) -> str | None:
    """The request text, or None when there is no error to fix."""
    exc = failed.error if failed is not None else users_last_exception()  # a fix is of the user's cell
    if exc is None:
        return None
    parts = [FIX_INSTRUCTIONS, ""]
    if failed is not None:
        count = failed.execution_count if failed.execution_count is not None else " "
        cell = f"cell id {failed.cell_id}" if failed.cell_id else "cell id unknown"
        parts += [f"Failing cell [{count}] ({cell}):", "```python", failed.source.rstrip(), "```", ""]
    parts += ["Exception and traceback (innermost last):", describe_exception(exc, innermost=6, context=3)]
    return "\n".join(parts)
