"""The notebook tools' definitions exactly as the model receives them (name, description, input schema). Pinned."""

from __future__ import annotations

from jupyter_agent.builtin_tools.notebook import notebook_tools

EXPECTED = [
    {
        "name": "NotebookRead",
        "description": "Read a Jupyter notebook's cells: ids, types, execution counts, sources and "
        "outputs (cut to a budget; images as image blocks; errors whole).\n"
        "- Without notebook_path it reads the notebook this kernel belongs to — the one "
        "the user is working in, live from JupyterLab when it is open there (unsaved "
        "changes included); in VS Code, or where no page with the jupyter-agent extension answers, its saved "
        "file (the result says which).\n"
        '- Cells are addressed by id (e.g. "3f2a9c1b"), never by position; NotebookEdit '
        "and RunCell take these ids.\n"
        "- A large notebook comes back as an outline (ids and first lines); call "
        "NotebookRead with cell_id for a full cell.\n"
        "- Read a cell before NotebookEdit replaces or deletes it.",
        "input_schema": {
            "additionalProperties": False,
            "properties": {
                "notebook_path": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "The notebook to read, absolute "
                    "or relative to the notebook's "
                    "directory. Omit it for this "
                    "kernel's notebook.",
                },
                "cell_id": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "Read only this cell (full source and more of its outputs).",
                },
            },
            "type": "object",
        },
    },
    {
        "name": "NotebookEdit",
        "description": "Change one cell of a Jupyter notebook, addressed by its id (from NotebookRead).\n"
        '- edit_mode "replace" (default): new_source replaces the cell\'s source; '
        "cell_type, if given, also changes its type; clear_outputs true also clears the cell's outputs and "
        "execution count (omit new_source to only clear them).\n"
        '- edit_mode "insert": a new cell with new_source goes after cell_id; without cell_id it '
        "goes right below the running %%agent cell of this kernel's notebook (at the top of another "
        "notebook); cell_type is required. The result gives the new cell's id.\n"
        '- edit_mode "delete": removes the cell (new_source is ignored).\n'
        '- edit_mode "move": the cell goes right after after_cell_id, or to the top when after_cell_id is '
        "omitted or empty; it keeps its id, source and outputs (new_source is ignored).\n"
        "- Without notebook_path it edits this kernel's notebook; when that is open in "
        "JupyterLab the change shows there at once and the user can undo it (the file is "
        "saved by the user). Where the notebook is held by a frontend that cannot be changed from here "
        "(VS Code, a page without the extension, a headless run), the change is shown to the user as a "
        "proposal to apply instead, and the result says so.\n"
        "- Read a cell with NotebookRead before replacing, deleting or clearing it; a cell the user "
        "changed since is refused (STALE_READ): read it again and redo the change.\n"
        "- Editing a cell does not run it; use RunCell for that.",
        "input_schema": {
            "additionalProperties": False,
            "properties": {
                "notebook_path": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "The notebook to edit, absolute "
                    "or relative to the notebook's "
                    "directory. Omit it for this "
                    "kernel's notebook.",
                },
                "cell_id": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "The cell to replace, delete or move; for "
                    "insert, the cell to insert after "
                    "(omit: below the running %%agent cell).",
                },
                "new_source": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "The cell's new source: required for insert and for replace (unless "
                    "clear_outputs); ignored for delete and move.",
                },
                "cell_type": {
                    "anyOf": [{"enum": ["code", "markdown"], "type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "The cell's type: required for "
                    "insert; for replace, changes the "
                    "type when it differs.",
                },
                "edit_mode": {
                    "default": "replace",
                    "description": "replace (default), insert, delete, or move.",
                    "enum": ["replace", "insert", "delete", "move"],
                    "type": "string",
                },
                "after_cell_id": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "move: the cell to put it right after (omit or empty: the top).",
                },
                "clear_outputs": {
                    "default": False,
                    "description": "replace: also clear the cell's outputs and execution count (omit "
                    "new_source to only clear them).",
                    "type": "boolean",
                },
            },
            "type": "object",
        },
    },
    {
        "name": "RunCell",
        "description": "Run code cells of the user's notebook (this kernel's notebook) in this "
        "kernel, as if the user pressed Shift+Enter: it runs the cell's current source in "
        "the user's namespace, its outputs are written into the cell, and you get them "
        "back (printed text, displayed values and images, the traceback if it raised).\n"
        "- cell_id is the id NotebookRead shows. Only code cells run.\n"
        "- To run several cells in one call (one approval), give cell_ids instead, in notebook order: they "
        "run one at a time, and the first that raises (or an interrupt) stops the rest; the result says which "
        "ran, which failed and which did not run.\n"
        '- range with cell_id runs a part of the notebook the same way: "above" the code cells above that '
        'cell (not the cell itself), "below" that cell and the code cells below it; empty and %%agent cells are '
        "skipped.\n"
        "- Where the notebook cannot be changed from here (VS Code, a page without the extension), it runs "
        "the cell's saved source and shows the outputs in the %%agent cell instead; the result says which.\n"
        "- The user is asked before it runs unless a rule allows it. To run code that is "
        "not in a cell, use RunCode.",
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
                    "description": "Several code cells to run one after the other, in notebook order "
                    "(instead of cell_id).",
                },
                "range": {
                    "anyOf": [{"enum": ["above", "below"], "type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": 'With cell_id: "above" runs the code cells above it, "below" runs it and '
                    "the code cells below it.",
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
