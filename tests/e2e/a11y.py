"""Accessibility checks run in the page: axe-core (the labextension's devDependency, installed by `jlpm install`)
restricted to the agent's own widgets, JupyterLab's light and dark themes, and WCAG contrast as drawn."""

from __future__ import annotations

from typing import Any

from lab import ROOT

AXE = ROOT / "labextension" / "node_modules" / "axe-core" / "axe.min.js"
#: The agent's widgets in the page: its approval, tool cards, answer, review bar and marks, the pending edit at
#: a cell, the "thinking…" status and the live region.
AGENT_WIDGETS = (
    ".jp-agent-approval",
    ".jp-agent-card",
    ".jp-agent-text",
    ".jp-agent-review",
    ".jp-agent-review-bar",
    ".jp-agent-pending",
    ".jp-agent-waiting",
    ".jp-agent-footer",
    ".jp-agent-stopped",
)
LIGHT = "JupyterLab Light"
DARK = "JupyterLab Dark"

#: The contrast ratio of an element's text on the first opaque background behind it (WCAG 2.x), from the
#: computed colours.
CONTRAST_JS = """(el) => {
  const rgba = s => { const v = s.match(/[\\d.]+/g).map(Number); return v.length > 3 ? v : [...v, 1]; };
  const lum = ([r, g, b]) => {
    const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  let back = null;
  for (let node = el; node && !back; node = node.parentElement) {
    const c = rgba(getComputedStyle(node).backgroundColor);
    if (c[3] > 0.99) back = c;
  }
  back = back || [255, 255, 255, 1];
  const a = lum(rgba(getComputedStyle(el).color)), b = lum(back);
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


def axe_violations(page: Any) -> list[str]:
    """axe-core's violations within the agent's widgets now shown, one line each (rule, impact, the nodes)."""
    if not AXE.is_file():
        raise FileNotFoundError(
            f"no axe-core at {AXE}: run `jlpm install` in labextension/ (a devDependency)"
        )
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    # JupyterLab's body is 0 px high with overflow hidden (its shell is positioned absolutely), which axe reads as
    # hiding every statically positioned element in it, so it would check no text at all; with the window's
    # height the page looks the same and axe checks what a person sees.
    page.evaluate("() => { document.body.style.minHeight = '100vh'; }")
    present = [s for s in AGENT_WIDGETS if page.locator(s).count() > 0]
    assert present, "none of the agent's widgets is in the page"
    found = page.evaluate(
        "async (include) => { const r = await axe.run({include: include.map(s => [s])},"
        " {resultTypes: ['violations']});"
        " return r.violations.map(v => `${v.id} (${v.impact}): ${v.help} — ` + v.nodes.map(n =>"
        " n.target.join(' ') + ' ' + (n.failureSummary || '').replace(/\\s+/g, ' ')).join(' | ')); }",
        present,
    )
    return list(found)


def set_theme(page: Any, theme: str) -> None:
    """Switch JupyterLab's theme and wait until its colours apply."""
    light = "true" if theme == LIGHT else "false"
    page.evaluate(f"() => window.jupyterapp.commands.execute('apputils:change-theme', {{theme: {theme!r}}})")
    page.wait_for_function(
        f"() => document.body.dataset.jpThemeName === {theme!r} && document.body.dataset.jpThemeLight === {light!r}",
        timeout=30_000,
    )
    page.wait_for_function(  # the theme's stylesheet is loaded: its layout colour is the body's
        "(light) => { const bg = getComputedStyle(document.body).getPropertyValue('--jp-layout-color0').trim();"
        " return light === 'true' ? bg === 'white' || bg === '#fff' || bg === '#ffffff' : bg !== '' && bg !== 'white'; }",
        arg=light,
        timeout=30_000,
    )
