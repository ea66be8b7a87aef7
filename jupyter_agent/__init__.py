"""jupyter_agent — a Claude agent inside the Jupyter kernel.

`%load_ext jupyter_agent`, then a `%%agent` cell. Importing this package stays cheap: the SDK, widgets and
the agent loop are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._lazy import lazy_exports

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from .tools.function_tool import tool

__getattr__ = lazy_exports(__name__, {"tool": ".tools.function_tool"})

__version__ = "0.1.0"
__all__ = [
    "__version__",
    "_jupyter_labextension_paths",
    "load_ipython_extension",
    "tool",
    "unload_ipython_extension",
]


def load_ipython_extension(ipython: InteractiveShell) -> None:
    """`%load_ext jupyter_agent`: register the magics and their settings, start warming the heavy imports."""
    from ._preload import hold_cells_until_preloaded, start_preload
    from .magics import load

    load(ipython)
    if start_preload() is not None:
        hold_cells_until_preloaded(ipython)


def unload_ipython_extension(ipython: InteractiveShell) -> None:
    """`%unload_ext jupyter_agent`: close MCP connections, stop the worker, remove the magics."""
    from .magics import unload

    unload(ipython)


def _jupyter_labextension_paths() -> list[dict[str, Any]]:
    return [{"src": "labextension", "dest": "jupyter-agent"}]
