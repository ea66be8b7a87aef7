"""The documentation site: Sphinx with MyST Markdown and the PyData theme, as Jupyter AI and JupyterLab build
theirs. `bash scripts/docs.sh` builds it into docs/_build/html with warnings as errors.

The reference pages (docs/reference/*.md: magics, settings, tools) are written here at each build from the
package's own tables (`jupyter_agent.host.commands.reference_pages`, the rows `%agent help` shows), so they are
never written by hand and never committed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))  # the checkout's package, whichever one is installed


def write_reference_pages(directory: Path) -> list[Path]:
    """Write the generated reference pages into `directory`; a page that did not change is left as it is, so
    Sphinx does not read it again."""
    from jupyter_agent.host.commands import reference_pages

    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, text in reference_pages().items():
        page = directory / f"{name}.md"
        if not page.exists() or page.read_text(encoding="utf-8") != text + "\n":
            page.write_text(text + "\n", encoding="utf-8")
        written.append(page)
    return written


project = "jupyter_agent"
author = "the jupyter_agent authors"
extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]
html_theme = "pydata_sphinx_theme"
html_title = "jupyter_agent"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}


def setup(app: Any) -> dict[str, bool]:
    """Write the reference pages before Sphinx looks for the documents (importing this file writes nothing)."""
    app.connect("config-inited", lambda _app, _config: write_reference_pages(DOCS / "reference"))
    return {"parallel_read_safe": True}


smartquotes = False  # "--allow" stays two hyphens, as typed in a cell
