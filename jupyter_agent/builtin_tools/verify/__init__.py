"""VerifyNotebook: run a notebook top to bottom in a fresh kernel and say whether it reproduces."""

from __future__ import annotations

from .tool import NOTEBOOK_FAILS, Checked, VerifyNotebook, VerifyNotebookInput, verify_notebook

__all__ = ["NOTEBOOK_FAILS", "Checked", "VerifyNotebook", "VerifyNotebookInput", "verify_notebook"]
