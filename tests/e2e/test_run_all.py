"""Run All over `%load_ext` / `%%agent` / a dozen dependent cells, in JupyterLab and Notebook 7.

Every cell after the agent cell checks that the one before it ran and appends its number to a file, so a
reorder shows up both in the file and as an aborted run. The race that reordered them was intermittent:
each variant runs several times. While an approval is pending the kernel must show Busy, not Idle.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

import pytest
from lab import (
    Lab,
    ScriptBox,
    agent_output,
    open_notebook,
    open_notebook_7,
    run_cell,
    wait_cell_done,
    write_notebook,
)

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn

CELLS = 12
REPEATS = 3


def dependent_cells() -> list[str]:
    cells = ["step = 1\nwith open('order.txt', 'a') as f:\n    f.write('1\\n')"]
    for n in range(2, CELLS + 1):
        cells.append(
            f"assert step == {n - 1}, step\nstep = {n}\nwith open('order.txt', 'a') as f:\n    f.write('{n}\\n')"
        )
    return cells


def notebook(lab: Lab, name: str, mode: str) -> None:
    """A fresh notebook `name`; the agent will write `name`.md (a new file, so Write asks unless acceptEdits)."""
    (lab.root / "order.txt").unlink(missing_ok=True)
    flags = " --mode acceptEdits" if mode == "acceptEdits" else ""
    write_notebook(
        lab, name, ["%load_ext jupyter_agent", f"%%agent{flags}\nwrite the notes", *dependent_cells()]
    )


def script(model_server: tuple[ScriptedServer, ScriptBox], notes: str) -> None:
    server, box = model_server
    box.set(
        [
            Turn(
                blocks=[
                    Text("Writing."),
                    ToolUse(name="Write", input={"file_path": notes, "content": "n\n"}),
                ]
            ),
            Turn(blocks=[Text("Notes written.")]),
        ],
        server,
    )


def command(page: Any, name: str) -> None:
    """Start a notebook command without awaiting it: it settles only when every cell has run."""
    page.evaluate(f"() => {{ window.jupyterapp.commands.execute({name!r}); }}")


def prompts(page: Any) -> list[str]:
    return [p.strip() for p in page.locator(".jp-Notebook .jp-Cell .jp-InputArea-prompt").all_inner_texts()]


def wait_all_ran(page: Any, timeout: float = 90_000) -> None:
    """Until the agent cell has its number and no cell is running or queued (`[*]`); aborted cells show `[ ]`."""
    page.wait_for_function(
        "() => { const ps = Array.from(document.querySelectorAll('.jp-Notebook .jp-Cell .jp-InputArea-prompt'));"
        " return ps.length > 2 && /\\[\\d+\\]/.test(ps[1].textContent)"
        " && !ps.some(p => p.textContent.includes('*')); }",
        timeout=timeout,
    )


def kernel_status_settles_on_busy(page: Any) -> None:
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.kernelDisplayStatus === 'busy'",
        timeout=15_000,
    )


def assert_notebook_order(page: Any, lab: Lab, first: int = 1) -> None:
    assert (lab.root / "order.txt").read_text().split() == [str(n) for n in range(1, CELLS + 1)]
    # A cell's number is drawn when its reply arrives, which can be just after the file was written; on a
    # timeout the assertions below say which cell has no number.
    with contextlib.suppress(Exception):
        page.wait_for_function(
            "(first) => Array.from(document.querySelectorAll('.jp-Notebook .jp-Cell .jp-InputArea-prompt'))"
            ".slice(first).every(p => /\\[\\d+\\]/.test(p.textContent))",
            arg=first,
            timeout=15_000,
        )
    numbers = [int(m.group(1)) for p in prompts(page)[first:] if (m := re.search(r"\[(\d+)\]", p))]
    assert len(numbers) == len(prompts(page)) - first, prompts(page)
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers), prompts(page)


def approve_while_busy(page: Any) -> None:
    output = agent_output(page)
    approve = output.locator("button.jupyter-button:has-text('Allow once')")
    approve.wait_for(timeout=60_000)
    kernel_status_settles_on_busy(page)
    assert prompts(page)[1] == "[*]:"
    approve.click()


@pytest.mark.parametrize("repeat", range(REPEATS))
@pytest.mark.parametrize("mode", ["approval", "acceptEdits"])
def test_run_all_keeps_notebook_order_behind_the_agent_cell(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox], mode: str, repeat: int
) -> None:
    name = f"run-all-{mode}-{repeat}.ipynb"
    script(model_server, f"{name}.md")
    notebook(lab, name, mode)
    open_notebook(page, lab, name)
    command(page, "notebook:run-all-cells")
    if mode == "approval":
        approve_while_busy(page)
    wait_all_ran(page)
    assert (lab.root / f"{name}.md").read_text() == "n\n"
    assert_notebook_order(page, lab)


def test_run_selected_cell_and_all_below_keeps_order(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    script(model_server, "run-below.md")
    notebook(lab, "run-below.ipynb", "approval")
    open_notebook(page, lab, "run-below.ipynb")
    run_cell(page, 0)  # leaves the agent cell selected
    wait_cell_done(page, 0)
    command(page, "notebook:run-all-below")
    approve_while_busy(page)
    wait_all_ran(page)
    assert_notebook_order(page, lab)


def test_run_all_keeps_notebook_order_in_notebook_7(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    script(model_server, "nb7.md")
    notebook(lab, "nb7.ipynb", "approval")
    open_notebook_7(page, lab, "nb7.ipynb")
    assert page.evaluate("() => window.jupyterapp.name") == "Jupyter Notebook"
    command(page, "notebook:run-all-cells")
    approve_while_busy(page)
    wait_all_ran(page)
    assert_notebook_order(page, lab)
