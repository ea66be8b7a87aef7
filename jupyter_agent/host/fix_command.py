"""`%agent fix`: the request for the last failing cell (or a given cell's last failed run), run as a cell."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .kernel_agent import KernelAgent


def fix_command(agent: KernelAgent, args: list[str]) -> str | None:
    """`%agent fix [CELL_ID]`: ask the agent to explain and fix the last error (or that cell's); the run is
    the answer, so nothing is returned then; otherwise why there is nothing to fix."""
    from ..watch.fix import fix_request

    watcher = agent.watcher
    if args:  # `%agent fix CELL_ID` ("Fix this cell with the agent"): that cell's last run, if it raised
        cell_id = args[0]
        run = watcher.last_run_of(cell_id) if watcher is not None else None
        if run is None or run.error is None:
            how = (
                "did not raise"
                if run is not None
                else "is not known (not run since the extension was loaded)"
            )
            return f"no error to fix in cell {cell_id}: its last run {how}; `%agent fix` fixes the last error"
        request = fix_request(run)
    else:
        request = fix_request(watcher.last_error if watcher is not None else None)
    if request is None:
        return (
            "no error to fix: no cell has raised an exception in this kernel since the extension was loaded"
        )
    # A traceback can quote a secret the user's code handled: masked where it leaves (the request body, the
    # session file, the display). Its `@` (a decorator) is no reference.
    agent.run_cell(request, references=False)
    return None
