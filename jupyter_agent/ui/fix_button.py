""" "Fix with agent" under a traceback: one small output after a user cell raises.

The labextension renders FIX_MIME as a button that inserts a `%agent fix` cell below the failing cell and
runs it; frontends without the extension (VS Code, nbconvert, a terminal) show the text/html or
text/plain fallback, which says to run `%agent fix`.
"""

from __future__ import annotations

from typing import Any

from ..builtin_tools.kernel.tracebacks import headline
from .gate import show_bundle
from .html import esc

FIX_MIME = "application/vnd.jupyter-agent.fix+json"
FIX_COMMAND = "%agent fix"


def fix_bundle(error: BaseException) -> dict[str, Any]:
    about = headline(error)
    return {
        FIX_MIME: {"error": about},
        "text/plain": f"Run {FIX_COMMAND} to ask the agent to explain and fix this error.",
        "text/html": (
            f'<div class="jp-agent-fix-hint" title="{esc(about)}" style="font-size:0.9em;opacity:0.8">'
            f"Run <code>{esc(FIX_COMMAND)}</code> to ask the agent to explain and fix this error.</div>"
        ),
    }


def show_fix_button(error: BaseException) -> None:
    show_bundle(fix_bundle(error))
