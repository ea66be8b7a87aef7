"""An approval answered from the keyboard: it takes the focus when it appears, a screen reader is told it waits,
Enter allows once and Escape denies. Its main buttons are JupyterLab's own, legible (WCAG AA, 4.5:1)."""

from __future__ import annotations

import os
import shutil
from typing import Any

from lab import (
    ARTIFACTS,
    ROOT,
    Lab,
    ScriptBox,
    ask_in_notebook,
)

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn

SHOT = "approval-in-words.png"

#: The contrast ratio of an element's text on its background (WCAG 2.x), from the computed colours.
CONTRAST_JS = """(el) => {
  const rgb = s => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => {
    const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const style = getComputedStyle(el);
  const a = lum(rgb(style.color)), b = lum(rgb(style.backgroundColor));
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


def test_enter_allows_and_escape_denies_the_focused_approval(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    box.set(
        [
            Turn(blocks=[ToolUse(name="Write", input={"file_path": "keys-yes.md", "content": "yes\n"})]),
            Turn(blocks=[ToolUse(name="Write", input={"file_path": "keys-no.md", "content": "no\n"})]),
            Turn(blocks=[Text("Wrote one, was told no for the other.")]),
        ],
        server,
    )
    output = ask_in_notebook(page, lab, "keys.ipynb", "write two notes")
    approval = output.locator(".jp-agent-approval")
    approval.wait_for(timeout=60_000)
    page.wait_for_function(
        "() => !!document.activeElement && !!document.activeElement.closest('.jp-agent-approval')",
        timeout=15_000,
    )
    assert "Write keys-yes.md?" in approval.inner_text()
    live = page.locator("#jp-agent-live-region")
    assert live.get_attribute("aria-live") == "polite"
    assert "Approval waiting: Write keys-yes.md?" in live.inner_text()
    for button in ("jp-agent-allow-once", "jp-agent-deny"):  # the agent's own colours, measured as drawn
        ratio = output.locator(f"button.jp-Button.{button}").evaluate(CONTRAST_JS)
        assert ratio >= 4.5, (button, ratio)
    ARTIFACTS.mkdir(exist_ok=True)
    approval.screenshot(path=str(ARTIFACTS / SHOT))
    if os.environ.get("UPDATE_README_SCREENSHOT"):  # refresh the docs' image on purpose only
        shutil.copy(ARTIFACTS / SHOT, ROOT / "docs" / "images" / SHOT)
    page.keyboard.press("Enter")
    output.locator("text=Write keys-no.md?").wait_for(timeout=60_000)
    page.wait_for_function(
        "() => !!document.activeElement && !!document.activeElement.closest('.jp-agent-approval')"
        " && document.activeElement.closest('.jp-agent-approval').innerText.includes('keys-no.md')",
        timeout=15_000,
    )
    page.keyboard.press("Escape")
    output.locator("text=Wrote one, was told no for the other.").wait_for(timeout=60_000)
    assert (lab.root / "keys-yes.md").read_text() == "yes\n"
    assert not (lab.root / "keys-no.md").exists()
    text = output.inner_text()
    assert "Write keys-yes.md: allowed once" in text or "keys-yes.md: allowed once" in text, text
    assert "denied" in text
