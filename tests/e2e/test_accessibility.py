"""axe-core finds no violation in the agent's widgets — the approval waiting at its cell and in the output, the
tool cards, the answer with its headings, the review bar — in JupyterLab's light theme and in its dark theme, and
the approval's main buttons keep WCAG AA contrast (4.5:1) as drawn in the dark theme too."""

from __future__ import annotations

from typing import Any

from a11y import CONTRAST_JS, DARK, LIGHT, axe_violations, set_theme
from lab import Lab, ScriptBox, agent_output, notebook_with_ids, open_notebook, run_cell, wait_cell_done

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn

#: An answer whose headings skip levels (h1 then h4), as a model may write them.
ANSWER = "# Summary\n\nThe total is doubled.\n\n#### Details\n\n- `total` changed\n\n## Next\n\nRun the cell."


def violations_in_both_themes(page: Any) -> str:
    """axe's violations in the light theme, then in the dark one, one line each ("" for none); the page is left
    in the light theme, as the other tests expect."""
    found: list[str] = []
    try:
        for theme in (LIGHT, DARK):
            set_theme(page, theme)
            found += [f"{theme}: {violation}" for violation in axe_violations(page)]
    finally:
        set_theme(page, LIGHT)
    return "\n".join(found)


def test_the_agents_widgets_pass_axe_in_light_and_dark_themes(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    notebook_with_ids(
        lab,
        "a11y.ipynb",
        [
            ("load", "%load_ext jupyter_agent"),
            ("target", "# clean\ntotal = sum([1, 2])"),
            ("ask", "%%agent\ndouble the total"),
        ],
    )
    box.set(
        [
            Turn(blocks=[ToolUse(name="NotebookRead", input={"cell_id": "target"})]),
            Turn(
                blocks=[
                    ToolUse(
                        name="NotebookEdit",
                        input={"cell_id": "target", "new_source": "# clean\ntotal = sum([1, 2]) * 2"},
                    )
                ]
            ),
            Turn(blocks=[Text(ANSWER)]),
        ],
        server,
    )
    open_notebook(page, lab, "a11y.ipynb")
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 2)
    output = agent_output(page)
    approval = output.locator(".jp-agent-approval")
    approval.wait_for(timeout=60_000)
    page.locator(".jp-agent-pending[data-cell-id='target']").wait_for(timeout=30_000)

    waiting = violations_in_both_themes(page)
    assert not waiting, waiting
    try:
        set_theme(page, DARK)
        for button in ("jp-agent-allow-once", "jp-agent-deny"):
            ratio = output.locator(f"button.jp-Button.{button}").evaluate(CONTRAST_JS)
            assert ratio >= 4.5, (button, ratio)
    finally:
        set_theme(page, LIGHT)

    output.locator("button.jp-agent-allow-once").click()
    output.locator("text=The total is doubled.").wait_for(timeout=60_000)
    wait_cell_done(page, 2)
    output.locator(".jp-agent-review").first.wait_for(timeout=30_000)
    assert output.locator(".jp-agent-card").count() >= 2
    levels = output.locator(".jp-agent-text").evaluate_all(
        "els => els.flatMap(el => Array.from(el.querySelectorAll('h1,h2,h3,h4,h5,h6'), h => h.tagName))"
    )
    assert len(levels) == 3, levels
    done = violations_in_both_themes(page)
    assert not done, done
