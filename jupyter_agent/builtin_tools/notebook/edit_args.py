"""NotebookEdit's input and which of its parameters each edit_mode takes: one that does not apply is refused,
never ignored (a silently dropped `after_cell_id` put a cell where the model did not ask).
"""

from __future__ import annotations

from typing import Literal

from ...base.errors import ToolError
from ...tools.core import ToolInput

EditMode = Literal["replace", "insert", "delete", "move"]
Param = Literal[
    "new_source", "old_string", "new_string", "replace_all", "cell_type", "after_cell_id", "clear_outputs"
]


class NotebookEditInput(ToolInput):
    notebook_path: str | None = None
    """The notebook to edit, absolute or relative to the working directory. Omit it for this kernel's notebook."""
    edit_mode: EditMode = "replace"
    """replace (default), insert, delete, or move."""
    cell_id: str | None = None
    """The id of the cell to replace, delete or move (from NotebookRead; not its position). For insert it may \
name the cell to insert after, like after_cell_id."""
    new_source: str | None = None
    """replace: the cell's whole new source; insert: the new cell's source."""
    old_string: str | None = None
    """replace: the exact text in the cell to change (unique unless replace_all), with new_string; instead of \
new_source."""
    new_string: str | None = None
    """replace: the text to put in place of old_string."""
    replace_all: bool = False
    """replace with old_string: change every occurrence instead of requiring exactly one."""
    cell_type: Literal["code", "markdown"] | None = None
    """insert: the new cell's type (required); replace: changes the cell's type when it differs."""
    after_cell_id: str | None = None
    """insert and move: the id of the cell to put it right after, or "" for the top of the notebook. Required \
for move; insert without it goes right below the running %%agent cell."""
    clear_outputs: bool = False
    """replace: also clear the cell's outputs and execution count (omit new_source to only clear them)."""


#: The modes each parameter is for.
_FOR: dict[Param, tuple[EditMode, ...]] = {
    "new_source": ("replace", "insert"),
    "old_string": ("replace",),
    "new_string": ("replace",),
    "replace_all": ("replace",),
    "cell_type": ("replace", "insert"),
    "after_cell_id": ("insert", "move"),
    "clear_outputs": ("replace",),
}
#: What each mode does take, said with every refusal.
_TAKES: dict[EditMode, str] = {
    "replace": "replace takes cell_id with new_source (the whole cell) or old_string and new_string (part of it), "
    "and optionally cell_type and clear_outputs",
    "insert": "insert takes new_source, cell_type and after_cell_id",
    "delete": "delete takes only cell_id",
    "move": "move takes cell_id and after_cell_id",
}
#: Where a parameter sent with the wrong mode usually meant another one.
_MEANT: dict[tuple[Param, EditMode], str] = {
    ("after_cell_id", "replace"): "the cell replace changes is cell_id; to put a new cell after it use "
    "edit_mode 'insert'",
    ("new_source", "move"): "a move keeps the cell's source; change it with a separate replace",
    ("cell_type", "move"): "a move keeps the cell's type; change it with edit_mode 'replace' and cell_type",
    ("cell_type", "delete"): "to change a cell's type use edit_mode 'replace' with cell_type",
}


def _given(params: NotebookEditInput, name: Param, mode: EditMode) -> bool:
    value = getattr(params, name)
    if name == "new_source" and mode in ("delete", "move"):
        return bool(value)  # Claude Code's NotebookEdit always sends new_source, "" for a delete
    return value not in (None, False)


def check_args(params: NotebookEditInput) -> None:
    """`INVALID_ARGS` naming the parameter that does not apply to the mode, and the one that does."""
    mode = params.edit_mode
    for name, modes in _FOR.items():
        if mode in modes or not _given(params, name, mode):
            continue
        hint = _MEANT.get((name, mode), _TAKES[mode])
        raise ToolError(
            "INVALID_ARGS",
            f"{name} does not apply to edit_mode '{mode}' (it is for {' and '.join(modes)}); {hint}",
        )
    if mode == "move" and params.after_cell_id is None:
        raise ToolError(
            "INVALID_ARGS",
            "edit_mode 'move' needs after_cell_id: the id of the cell it should follow, or \"\" to move it to the "
            "top",
        )
    if (
        mode == "insert"
        and None not in (params.cell_id, params.after_cell_id)
        and params.cell_id != params.after_cell_id
    ):
        raise ToolError(
            "INVALID_ARGS",
            f"insert got two anchors, cell_id '{params.cell_id}' and after_cell_id '{params.after_cell_id}'; "
            "pass only after_cell_id, the cell the new one goes after",
        )
    if mode == "replace":
        _check_replace(params)


def _check_replace(params: NotebookEditInput) -> None:
    in_cell = params.old_string is not None or params.new_string is not None
    if in_cell and params.new_source is not None:
        raise ToolError(
            "INVALID_ARGS",
            "pass either new_source (the cell's whole new source) or old_string and new_string (the part to "
            "change), not both",
        )
    if (params.old_string is None) != (params.new_string is None):
        missing = "new_string" if params.new_string is None else "old_string"
        raise ToolError("INVALID_ARGS", f"old_string and new_string go together; {missing} is missing")
    if params.replace_all and params.old_string is None:
        raise ToolError(
            "INVALID_ARGS", "replace_all goes with old_string and new_string (it has no effect on new_source)"
        )
    if params.old_string == "":
        raise ToolError(
            "INVALID_ARGS",
            "old_string is empty; pass the exact text in the cell to change, or new_source to replace the whole cell",
        )


def insert_anchor(params: NotebookEditInput) -> str | None:
    """The cell an insert goes after: after_cell_id, else cell_id ("" for the top, None when neither is given)."""
    return params.after_cell_id if params.after_cell_id is not None else params.cell_id
