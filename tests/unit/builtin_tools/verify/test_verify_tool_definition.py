"""VerifyNotebook's definition exactly as the model receives it (name, description, input schema). Pinned."""

from __future__ import annotations

from jupyter_agent.builtin_tools.verify import VerifyNotebook

EXPECTED = {
    "name": "VerifyNotebook",
    "description": "Check that a notebook runs top to bottom from a clean state: its code cells run in order in "
    "a fresh, separate kernel (the notebook's kernel spec, in the directory a restart would "
    "use), stopping at the first error. The user's kernel and the notebook file are not touched; "
    "the cells run for real (files they write are written).\n"
    "- Without notebook_path it checks this kernel's notebook as it is now (unsaved changes "
    "included).\n"
    "- %%agent cells and %agent lines are skipped.\n"
    "- Returns a one-line verdict, each code cell's id, status and seconds, and for the first "
    "failure the exception and traceback; when the failing cell uses a name that exists only in "
    "the user's live kernel (hidden state), it says so.\n"
    "- Use it after changing cells, to show the notebook still reproduces; until_cell_id checks "
    "a prefix. It runs the user's code, so the user is asked first unless a rule allows it.",
    "input_schema": {
        "additionalProperties": False,
        "properties": {
            "notebook_path": {
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "default": None,
                "description": "The notebook to check, absolute or "
                "relative to the working directory. "
                "Omit it for this kernel's notebook.",
            },
            "timeout": {
                "anyOf": [{"maximum": 3600000, "minimum": 1000, "type": "integer"}, {"type": "null"}],
                "default": None,
                "description": "Milliseconds each cell may run before the check stops it and fails; default "
                "600000 (10 minutes), max 3600000 (1 hour).",
            },
            "until_cell_id": {
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "default": None,
                "description": "Stop after this cell (it runs); the cells below it are not run.",
            },
        },
        "type": "object",
    },
}


def test_verify_notebook_definition_is_pinned() -> None:
    assert VerifyNotebook().to_param() == EXPECTED
