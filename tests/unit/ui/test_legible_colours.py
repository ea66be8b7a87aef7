"""The agent's text colours stay legible in light and dark themes (WCAG AA, measured by the e2e axe check): no
output draws text in JupyterLab's raw signal colours or its faint secondary greys, which fall under 4.5:1 on one
theme or the other; they go through `legible` / `MUTED`."""

from __future__ import annotations

import re
from pathlib import Path

import jupyter_agent
from jupyter_agent.ui.html import MUTED, legible

PACKAGE = Path(jupyter_agent.__file__).parent
#: A text colour (not a border or background) straight from a theme signal colour or secondary grey.
RAW_TEXT_COLOUR = re.compile(
    r"(?<![-\w])color:\s*var\(--jp-(?:(?:warn|error|success|brand)-color\d|ui-font-color[23])"
)


def test_no_output_draws_text_in_a_raw_signal_colour_or_a_faint_grey() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if RAW_TEXT_COLOUR.search(line)
    ]
    assert not found, "\n".join(found)


def test_the_mixes_follow_the_theme() -> None:
    """Mixed with the theme's own strongest text colour and background, so each theme gets its own."""
    assert (
        legible("warn")
        == "color-mix(in srgb,var(--jp-warn-color0,#b26b00) 60%,var(--jp-ui-font-color0,#000))"
    )
    assert "var(--jp-ui-font-color1" in MUTED and "var(--jp-layout-color0" in MUTED
