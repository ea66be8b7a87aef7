"""The notebook tools' definitions exactly as the model receives them (name, description, input schema). Pinned."""

from __future__ import annotations

from jupyter_agent.builtin_tools.notebook import notebook_tools

EXPECTED = [
    {
        "name": "NotebookRead",
        "description": "Read a Jupyter notebook's cells: ids, types, execution counts, sources and outputs (cut to "
        "a budget; images as image blocks; errors whole).\n"
        "- Without notebook_path it reads the notebook this kernel belongs to — the one the user is "
        "working in, live from JupyterLab when it is open there (unsaved changes included); in VS "
        "Code, or where no page with the jupyter-agent extension answers, its saved file (the "
        "result says which). Prefer it to Read for this kernel's notebook: the file on disk may be "
        "behind the page.\n"
        '- Cells are addressed by id (e.g. "3f2a9c1b"), never by position; NotebookEdit and RunCell '
        "take these ids.\n"
        "- A large notebook comes back as an outline: each cell's position, id, type, first line, "
        "and its outputs' kind and size. Then pass cell_ids (a list) to read several cells whole, "
        "with their outputs, in one call, or cell_id for one.\n"
        "- Read a cell before NotebookEdit replaces or deletes it.",
        "input_schema": {
            "additionalProperties": False,
            "properties": {
                "notebook_path": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "The notebook to read, absolute or "
                    "relative to the working directory. Omit "
                    "it for this kernel's notebook.",
                },
                "cell_id": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "Read only this cell (full source and more of its outputs).",
                },
                "cell_ids": {
                    "anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": "null"}],
                    "default": None,
                    "description": "Read these cells (full sources and outputs), "
                    "in notebook order, in one result; instead of "
                    "cell_id.",
                },
            },
            "type": "object",
        },
    },
    {
        "name": "NotebookEdit",
        "description": "Change one cell of a Jupyter notebook, addressed by its id (from NotebookRead), never by "
        "its position.\n"
        '- edit_mode "replace" (default) changes the cell named by cell_id. Either new_source '
        "replaces its whole source, or old_string and new_string change only that text in it, as "
        "Edit does for files: old_string must match the cell exactly and be unique in it, unless "
        "replace_all is true. cell_type, if given, also changes its type; clear_outputs true also "
        "clears its outputs and execution count (omit new_source to only clear them).\n"
        '- edit_mode "insert": a new cell with new_source and cell_type (required) goes right after '
        'the cell after_cell_id names ("" for the top); without after_cell_id it goes right below '
        "the running %%agent cell of this kernel's notebook (at the top of another notebook). The "
        "result gives the new cell's id.\n"
        '- edit_mode "delete": removes the cell named by cell_id.\n'
        '- edit_mode "move": the cell named by cell_id goes right after after_cell_id ("" for the '
        "top; after_cell_id is required); it keeps its id, source and outputs.\n"
        "- A parameter that does not apply to the edit_mode is refused (INVALID_ARGS), not "
        "ignored.\n"
        "- Without notebook_path it edits this kernel's notebook; when that is open in JupyterLab "
        "the change shows there at once and the user can undo it (the file on disk changes when the user saves). "
        "Where the notebook is held by a frontend that cannot be changed from here (VS Code, a page "
        "without the extension, a headless run), the change is shown to the user as a proposal to "
        "apply instead, and the result says so.\n"
        "- Read a cell with NotebookRead before replacing, deleting or clearing it: a cell never "
        "read is refused (NOT_READ), and a cell the user changed since your read is refused "
        "(STALE_READ): read it again and redo the change.\n"
        "- Editing a cell does not run it; use RunCell for that.",
        "input_schema": {
            "additionalProperties": False,
            "properties": {
                "notebook_path": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "The notebook to edit, absolute or "
                    "relative to the working directory. Omit "
                    "it for this kernel's notebook.",
                },
                "edit_mode": {
                    "default": "replace",
                    "description": "replace (default), insert, delete, or move.",
                    "enum": ["replace", "insert", "delete", "move"],
                    "type": "string",
                },
                "cell_id": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "The id of the cell to replace, delete or move "
                    "(from NotebookRead; not its position). For "
                    "insert it may name the cell to insert after, "
                    "like after_cell_id.",
                },
                "new_source": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "replace: the cell's whole new source; insert: the new cell's source.",
                },
                "old_string": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "replace: the exact text in the cell to "
                    "change (unique unless replace_all), with "
                    "new_string; instead of new_source.",
                },
                "new_string": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "replace: the text to put in place of old_string.",
                },
                "replace_all": {
                    "default": False,
                    "description": "replace with old_string: change every "
                    "occurrence instead of requiring exactly "
                    "one.",
                    "type": "boolean",
                },
                "cell_type": {
                    "anyOf": [{"enum": ["code", "markdown"], "type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "insert: the new cell's type (required); "
                    "replace: changes the cell's type when it "
                    "differs.",
                },
                "after_cell_id": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "insert and move: the id of the cell to "
                    'put it right after, or "" for the top of '
                    "the notebook. Required for move; insert "
                    "without it goes right below the running "
                    "%%agent cell.",
                },
                "clear_outputs": {
                    "default": False,
                    "description": "replace: also clear the cell's outputs "
                    "and execution count (omit new_source to "
                    "only clear them).",
                    "type": "boolean",
                },
            },
            "type": "object",
        },
    },
    {
        "name": "RunCell",
        "description": "Run code cells of the user's notebook (this kernel's notebook) in this kernel, as if the "
        "user pressed Shift+Enter: it runs the cell's current source in the user's namespace, its "
        "outputs are written into the cell, and you get them back (printed text, displayed values "
        "and images, the traceback if it raised).\n"
        "- cell_id is the id NotebookRead shows. Only code cells run; %%agent cells (the running "
        "one included) are refused before anything is asked or run.\n"
        "- To run several cells in one call (one approval), give cell_ids instead, in notebook "
        "order: they run one at a time, and the first that raises (or an interrupt) stops the rest; "
        "the result says which ran, which failed and which did not run.\n"
        '- range with cell_id runs a part of the notebook the same way: "above" the code cells '
        'above that cell (not the cell itself), "below" that cell and the code cells below it; '
        "empty and %%agent cells are skipped.\n"
        "- Where the notebook cannot be changed from here (VS Code, a page without the extension), "
        "it runs the cell's saved source and shows the outputs in the %%agent cell instead; the "
        "result says which.\n"
        "- The user is asked before it runs unless a rule allows it. To run code that is not in a "
        "cell, use RunCode.",
        "input_schema": {
            "additionalProperties": False,
            "properties": {
                "cell_id": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "The id of the code cell to run (from NotebookRead); or give cell_ids.",
                },
                "cell_ids": {
                    "anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": "null"}],
                    "default": None,
                    "description": "Several code cells to run one after the "
                    "other, in notebook order (instead of "
                    "cell_id).",
                },
                "range": {
                    "anyOf": [{"enum": ["above", "below"], "type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": 'With cell_id: "above" runs the code cells above '
                    'it, "below" runs it and the code cells below '
                    "it.",
                },
            },
            "type": "object",
        },
    },
]


def test_the_notebook_tool_definitions_are_pinned() -> None:
    assert [tool.to_param() for tool in notebook_tools()] == EXPECTED


def test_kinds_and_annotations() -> None:
    read, edit, run = notebook_tools()
    assert (read.kind, read.read_only) == ("read", True)
    assert (edit.kind, edit.read_only, edit.rule_field, edit.rule_kind) == (
        "edit",
        False,
        "notebook_path",
        "path",
    )
    assert (run.kind, run.read_only) == ("execute", False)
