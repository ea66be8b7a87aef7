"""The file backend on real files: every op, stale checks, ids, validation, and nbformat's layout on disk."""

from __future__ import annotations

import json
from asyncio import run
from pathlib import Path

import nbformat
import pytest
from notebook_testkit import assert_valid, write_notebook

from jupyter_agent.base.errors import ToolError
from jupyter_agent.notebook.file_backend import FileNotebook, parse_notebook
from jupyter_agent.notebook.ops import (
    Delete,
    GetCells,
    Insert,
    NotebookError,
    Op,
    OpResult,
    Replace,
    Restore,
    SetOutputs,
    SetType,
    raise_for,
)


def applied(book: FileNotebook, op: Op) -> OpResult:
    """One op as the notebook tools send it (a batch through `apply`), its failure raised."""
    (result,) = run(book.apply([op]))
    return raise_for(result)


@pytest.fixture
def nb_path(tmp_path: Path) -> Path:
    return write_notebook(tmp_path / "analysis.ipynb")


def test_cells_come_with_ids_types_sources_and_outputs(nb_path: Path) -> None:
    cells = run(FileNotebook(nb_path).cells())
    assert [c.id for c in cells] == ["c0", "c1", "c2", "md"]
    assert cells[1].source == "x = 1\nprint(x)"
    assert cells[1].execution_count == 2
    assert cells[1].outputs[0]["text"] == ["1\n"] or cells[1].outputs[0]["text"] == "1\n"
    assert cells[3].cell_type == "markdown" and cells[3].outputs == ()


def test_reading_does_not_touch_the_file(nb_path: Path) -> None:
    before = nb_path.stat().st_mtime_ns, nb_path.read_bytes()
    run(FileNotebook(nb_path).apply([GetCells(), Replace(id="nope", source="", expect=None)]))
    assert (nb_path.stat().st_mtime_ns, nb_path.read_bytes()) == before


def test_insert_after_a_cell_returns_the_new_id_and_writes_a_valid_notebook(nb_path: Path) -> None:
    book = FileNotebook(nb_path)
    result = run(book.insert("c0", "code", "y = 2\ny"))
    assert result.index == 1 and result.id
    assert_valid(nb_path)
    cells = run(book.cells())
    assert [c.id for c in cells][:2] == ["c0", result.id]
    assert cells[1].source == "y = 2\ny" and cells[1].execution_count is None


def test_insert_without_after_id_goes_to_the_top(nb_path: Path) -> None:
    result = run(FileNotebook(nb_path).insert(None, "markdown", "# Title"))
    assert result.index == 0
    assert run(FileNotebook(nb_path).cells())[0].source == "# Title"


def test_the_file_is_laid_out_exactly_as_nbformat_writes_it(nb_path: Path) -> None:
    applied(FileNotebook(nb_path), Replace(id="c1", source="x = 10\nprint(x)\n", expect="x = 1\nprint(x)"))
    text = nb_path.read_text(encoding="utf-8")
    assert text == nbformat.writes(nbformat.read(nb_path, as_version=4)) + "\n"
    assert json.loads(text)["cells"][1]["source"] == ["x = 10\n", "print(x)\n"]


def test_replace_with_a_stale_expectation_is_refused_and_the_file_is_unchanged(nb_path: Path) -> None:
    before = nb_path.read_bytes()
    with pytest.raises(NotebookError) as caught:
        applied(FileNotebook(nb_path), Replace(id="c1", source="oops", expect="what the model read long ago"))
    assert caught.value.code == "STALE_READ"
    assert caught.value.current == "x = 1\nprint(x)"
    assert nb_path.read_bytes() == before


def test_an_unknown_cell_id_names_the_notebook_and_the_fix(nb_path: Path) -> None:
    with pytest.raises(ToolError) as caught:
        applied(FileNotebook(nb_path), Replace(id="zz", source="x", expect=None))
    assert caught.value.code == "CELL_NOT_FOUND"
    assert (
        caught.value.message
        == "no cell with id 'zz' in analysis.ipynb; call NotebookRead for the current ids"
    )


def test_delete_then_restore_gives_back_the_same_file(nb_path: Path) -> None:
    original = nb_path.read_bytes()
    book = FileNotebook(nb_path)
    deleted = applied(book, Delete(id="c1", expect="x = 1\nprint(x)"))
    assert deleted.index == 1 and deleted.cell is not None and deleted.cell["id"] == "c1"
    assert [c.id for c in run(book.cells())] == ["c0", "c2", "md"]
    assert_valid(nb_path)
    applied(book, Restore(index=deleted.index or 0, cell=deleted.cell))
    assert nb_path.read_bytes() == original


def test_restoring_a_cell_that_is_still_there_is_refused(nb_path: Path) -> None:
    cell = {"id": "c1", "cell_type": "code", "source": "", "metadata": {}}
    with pytest.raises(NotebookError) as caught:
        applied(FileNotebook(nb_path), Restore(index=0, cell=cell))
    assert caught.value.wire == "CELL_EXISTS"


def test_changing_a_code_cell_to_markdown_drops_its_outputs_and_keeps_its_id(nb_path: Path) -> None:
    book = FileNotebook(nb_path)
    applied(book, SetType(id="c0", cell_type="markdown", expect="x = 0\nprint(x)"))
    cell = run(book.cell("c0"))[1]
    assert cell.cell_type == "markdown" and cell.outputs == () and cell.source == "x = 0\nprint(x)"
    assert_valid(nb_path)
    applied(book, SetType(id="c0", cell_type="code", expect=None))
    assert run(book.cell("c0"))[1].execution_count is None
    assert_valid(nb_path)


def test_set_outputs_writes_outputs_and_the_execution_count(nb_path: Path) -> None:
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": "a\nb\n"},
        {"output_type": "execute_result", "execution_count": 7, "data": {"text/plain": "42"}, "metadata": {}},
    ]
    run(FileNotebook(nb_path).set_outputs("c2", outputs, 7))
    assert_valid(nb_path)
    saved = json.loads(nb_path.read_text())["cells"][2]
    assert saved["execution_count"] == 7
    assert saved["outputs"][0]["text"] == ["a\n", "b\n"]


def test_outputs_that_break_the_schema_are_refused_and_nothing_is_written(nb_path: Path) -> None:
    before = nb_path.read_bytes()
    with pytest.raises(NotebookError) as caught:
        run(FileNotebook(nb_path).set_outputs("c2", [{"output_type": "stream"}], 1))
    assert caught.value.wire == "INVALID_OP"
    assert "invalid notebook" in caught.value.message
    assert nb_path.read_bytes() == before


def test_outputs_on_a_markdown_cell_are_an_invalid_op(nb_path: Path) -> None:
    with pytest.raises(NotebookError) as caught:
        run(FileNotebook(nb_path).set_outputs("md", [], None))
    assert caught.value.wire == "INVALID_OP"
    assert caught.value.message == "cell 'md' is a markdown cell; only code cells have outputs"


def test_a_failed_op_in_a_batch_leaves_the_others_applied(nb_path: Path) -> None:
    results = run(
        FileNotebook(nb_path).apply(
            [
                Insert(after_id="c2", cell_type="code", source="first"),
                Delete(id="missing", expect=None),
                Replace(id="c0", source="third", expect=None),
            ]
        )
    )
    assert [r.ok for r in results] == [True, False, True]
    assert results[1].error == "CELL_NOT_FOUND"
    sources = [c.source for c in run(FileNotebook(nb_path).cells())]
    assert sources[0] == "third" and sources[3] == "first"
    assert_valid(nb_path)


def test_cells_of_an_old_notebook_get_stable_index_ids_until_the_first_write(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "old.ipynb", with_ids=False)
    book = FileNotebook(path)
    ids = [c.id for c in run(book.cells())]
    assert ids == ["cell-0", "cell-1", "cell-2", "cell-3"]
    assert [c.id for c in run(book.cells())] == ids
    run(book.insert(None, "code", "import os"))
    assert [c.id for c in run(book.cells())][1:] == ids
    assert json.loads(path.read_text())["nbformat_minor"] == 5
    assert_valid(path)


def test_a_missing_notebook_is_notebook_not_found(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as caught:
        run(FileNotebook(tmp_path / "nope.ipynb").cells())
    assert caught.value.code == "NOTEBOOK_NOT_FOUND"


def test_a_file_that_is_not_a_notebook_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "data.ipynb"
    path.write_text('{"hello": 1}')
    with pytest.raises(ToolError) as caught:
        run(FileNotebook(path).cells())
    assert caught.value.message == "data.ipynb is not a Jupyter notebook (no 'cells' list)"


def test_an_insert_may_name_the_new_cells_id_so_the_batch_can_address_it(nb_path: Path) -> None:
    results = run(
        FileNotebook(nb_path).apply(
            [
                Insert(after_id=None, cell_type="code", source="a", id="setup"),
                Replace(id="setup", source="import os", expect="a"),
                Insert(after_id=None, cell_type="code", source="b", id="setup"),
            ]
        )
    )
    assert [r.ok for r in results] == [True, True, False]
    assert results[2].error == "CELL_EXISTS"
    assert run(FileNotebook(nb_path).cell("setup"))[1].source == "import os"
    assert_valid(nb_path)


def test_a_file_with_invalid_metadata_of_its_own_can_still_be_edited(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "odd.ipynb")
    data = json.loads(path.read_text())
    data["metadata"]["kernelspec"] = {"name": "python3"}  # no display_name: invalid before the agent came
    path.write_text(json.dumps(data))
    applied(FileNotebook(path), Replace(id="c0", source="x = 'fine'", expect=None))
    assert run(FileNotebook(path).cell("c0"))[1].source == "x = 'fine'"
    with pytest.raises(NotebookError):  # but what the agent writes is still checked
        run(FileNotebook(path).set_outputs("c0", [{"output_type": "bogus"}], None))


def test_a_second_cell_with_a_duplicate_id_is_addressable_and_edits_land_on_the_right_one(
    tmp_path: Path,
) -> None:
    """Copy-pasted JSON can repeat an id; the copy gets its own id so the model can address each cell."""
    path = write_notebook(tmp_path / "dup.ipynb")
    data = json.loads(path.read_text())
    data["cells"][1]["id"] = "c0"
    path.write_text(json.dumps(data))
    book = FileNotebook(path)
    cells = run(book.cells())
    ids = [c.id for c in cells]
    assert len(set(ids)) == len(ids)
    assert ids[0] == "c0" and ids[1] != "c0"
    second = ids[1]
    applied(book, Replace(id=second, source="x = 'second'", expect="x = 1\nprint(x)"))
    sources = {c.id: c.source for c in run(FileNotebook(path).cells())}
    assert sources["c0"] == "x = 0\nprint(x)"
    assert sources[second] == "x = 'second'"
    assert_valid(path)


def test_replacing_a_cell_with_its_own_source_does_not_touch_the_file(nb_path: Path) -> None:
    before = nb_path.stat().st_mtime_ns, nb_path.read_bytes()
    (result,) = run(FileNotebook(nb_path).apply([Replace(id="c1", source="x = 1\nprint(x)", expect=None)]))
    assert result.ok and result.index == 1
    assert (nb_path.stat().st_mtime_ns, nb_path.read_bytes()) == before


def test_refused_ops_say_which_cell_and_what_to_do(nb_path: Path) -> None:
    results = run(
        FileNotebook(nb_path).apply(
            [
                Replace(id="c1", source="x", expect="stale"),
                Insert(after_id=None, cell_type="code", source="x", id="c0"),
                Insert(after_id=None, cell_type="code", source="x", id="no spaces allowed"),
                Restore(index=0, cell={"cell_type": "code", "source": "x", "metadata": {}}),
                Restore(index=0, cell={"id": "c2", "cell_type": "code", "source": "x", "metadata": {}}),
            ]
        )
    )
    assert [(r.error, r.message) for r in results] == [
        (
            "STALE_READ",
            "cell 'c1' in analysis.ipynb changed since it was read; read it again before editing it",
        ),
        ("CELL_EXISTS", "a cell with id 'c0' is already in analysis.ipynb"),
        ("INVALID_OP", "'no spaces allowed' is not a valid cell id (1–64 of a-z A-Z 0-9 - _)"),
        ("INVALID_OP", "the cell to restore has no 'id'"),
        ("CELL_EXISTS", "a cell with id 'c2' is already in analysis.ipynb; nothing to restore"),
    ]
    assert results[0].current == "x = 1\nprint(x)"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "broken.ipynb is not valid notebook JSON ("),
        ("[1, 2]", "broken.ipynb is not a Jupyter notebook (no 'cells' list)"),
        ('{"metadata": {}}', "broken.ipynb is not a Jupyter notebook (no 'cells' list)"),
        (
            '{"cells": 3, "nbformat": 4, "nbformat_minor": 5, "metadata": {}}',
            "broken.ipynb is not a Jupyter notebook",
        ),
        (
            '{"nbformat": 3, "worksheets": "nope", "metadata": {}}',
            "broken.ipynb is not a notebook nbformat can read (",
        ),
    ],
)
def test_a_file_that_is_not_a_readable_notebook_is_refused_with_why(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "broken.ipynb"
    path.write_text(content)
    with pytest.raises(ToolError) as caught:
        run(FileNotebook(path).cells())
    assert caught.value.code == "INVALID_ARGS"
    assert caught.value.message.startswith(message), caught.value.message


def test_a_missing_id_never_takes_an_id_another_cell_already_has(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "mixed.ipynb")
    data = json.loads(path.read_text())
    data["cells"][0]["id"] = "cell-1"
    del data["cells"][1]["id"]
    path.write_text(json.dumps(data))
    ids = [c.id for c in run(FileNotebook(path).cells())]
    assert ids == ["cell-1", "cell-1-1", "c2", "md"]


def test_missing_ids_skip_every_id_an_earlier_cell_already_has(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "mixed.ipynb")
    data = json.loads(path.read_text())
    data["cells"][0]["id"] = "cell-2"
    data["cells"][1]["id"] = "cell-2-1"
    del data["cells"][2]["id"]
    path.write_text(json.dumps(data))
    assert [c.id for c in run(FileNotebook(path).cells())] == ["cell-2", "cell-2-1", "cell-2-2", "md"]


def test_an_id_given_to_a_cell_that_had_none_is_not_kept_by_a_later_cell_too(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "mixed.ipynb")
    data = json.loads(path.read_text())
    del data["cells"][0]["id"]
    data["cells"][1]["id"] = "cell-0"
    path.write_text(json.dumps(data))
    ids = [c.id for c in run(FileNotebook(path).cells())]
    assert ids[0] == "cell-0"
    assert len(set(ids)) == len(ids), ids


def test_a_notebook_without_nbformat_minor_is_written_back_as_4_5(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "bare.ipynb")
    data = json.loads(path.read_text())
    del data["nbformat_minor"]
    path.write_text(json.dumps(data))
    run(FileNotebook(path).insert(None, "code", "import os"))
    assert json.loads(path.read_text())["nbformat_minor"] == 5
    assert_valid(path)


def test_parsing_names_the_notebook_in_its_errors() -> None:
    with pytest.raises(ToolError) as caught:
        parse_notebook(b"{oops", "analysis.ipynb")
    assert caught.value.message.startswith("analysis.ipynb is not valid notebook JSON (")


def test_a_directory_named_like_a_notebook_is_notebook_not_found(tmp_path: Path) -> None:
    (tmp_path / "folder.ipynb").mkdir()
    with pytest.raises(ToolError) as caught:
        run(FileNotebook(tmp_path / "folder.ipynb").cells())
    assert caught.value.code == "NOTEBOOK_NOT_FOUND"
    assert caught.value.message == f"'{tmp_path / 'folder.ipynb'}' is a directory, not a notebook"


def test_a_refused_write_leaves_the_results_of_ops_that_changed_nothing_alone(nb_path: Path) -> None:
    before = nb_path.read_bytes()
    got, bogus, missing = run(
        FileNotebook(nb_path).apply(
            [GetCells(), SetOutputs(id="c0", outputs=({"output_type": "bogus"},), execution_count=None),
             Replace(id="nope", source="x", expect=None)]
        )
    )  # fmt: skip
    assert got.ok and [c.id for c in got.cells] == ["c0", "c1", "c2", "md"]
    assert (bogus.ok, bogus.error) == (False, "INVALID_OP")
    assert bogus.message.startswith("the change would make analysis.ipynb an invalid notebook: ")
    assert (missing.ok, missing.error) == (False, "CELL_NOT_FOUND")
    assert nb_path.read_bytes() == before


def test_applying_ops_never_changes_the_ops_so_a_journaled_op_can_be_applied_again(nb_path: Path) -> None:
    """The file is written with multi-line texts split into lines; the ops keep the texts they were given."""
    stream = {"output_type": "stream", "name": "stdout", "text": "a\nb\n"}
    restore = Restore(
        index=1,
        cell={"id": "back", "cell_type": "code", "source": "x", "metadata": {}, "outputs": [stream],
              "execution_count": 1},
    )  # fmt: skip
    shown = {"output_type": "display_data", "data": {"text/plain": "a\nb\n"}, "metadata": {}}
    outputs = SetOutputs(id="c0", outputs=(dict(stream), shown), execution_count=3)
    snapshot = json.dumps([restore.cell, list(outputs.outputs)])
    assert [r.ok for r in run(FileNotebook(nb_path).apply([restore, outputs]))] == [True, True]
    assert json.dumps([restore.cell, list(outputs.outputs)]) == snapshot
    written = {c["id"]: c for c in json.loads(nb_path.read_text())["cells"]}
    assert written["back"]["outputs"][0]["text"] == ["a\n", "b\n"]
    assert written["c0"]["outputs"][0]["text"] == ["a\n", "b\n"]
    assert written["c0"]["outputs"][1]["data"]["text/plain"] == ["a\n", "b\n"]


@pytest.mark.parametrize("sorted_keys", [True, False], ids=["nbformat's layout", "a layout of its own"])
def test_a_cell_inserted_into_an_empty_notebook_is_written(tmp_path: Path, sorted_keys: bool) -> None:
    path = tmp_path / "empty.ipynb"
    data = {"metadata": {}, "nbformat": 4, "nbformat_minor": 5, "cells": []}
    path.write_text(json.dumps(data, indent=1, sort_keys=sorted_keys))
    result = run(FileNotebook(path).insert(None, "code", "import os"))
    assert [c.source for c in run(FileNotebook(path).cells())] == ["import os"]
    assert result.index == 0
    assert_valid(path)


def _key_orders(path: Path) -> list[tuple[str, list[str]]]:
    return [(c["cell_type"], list(c)) for c in json.loads(path.read_text())["cells"]]


CODE_ORDER = ["id", "cell_type", "source", "outputs", "metadata", "execution_count"]
MARKDOWN_ORDER = ["source", "metadata", "id", "cell_type"]


def test_a_new_cell_takes_the_key_order_of_the_files_cells_of_its_own_type(tmp_path: Path) -> None:
    """Each type keeps its own layout; a cell put first is ordered like its kind, not like itself."""
    path = write_notebook(tmp_path / "custom.ipynb")
    data = json.loads(path.read_text())
    code, markdown = data["cells"][:3], data["cells"][3]
    data["cells"] = [
        {k: markdown[k] for k in MARKDOWN_ORDER},
        *({k: cell[k] for k in CODE_ORDER} for cell in code),
    ]
    path.write_text(json.dumps(data, indent=1))
    book = FileNotebook(path)
    run(book.insert(None, "code", "import os"))
    run(book.insert(None, "markdown", "# Title"))
    orders = _key_orders(path)
    assert orders[0] == ("markdown", MARKDOWN_ORDER)
    assert orders[1] == ("code", CODE_ORDER)


def test_a_new_cell_of_a_type_the_file_lacks_takes_the_order_of_any_cell(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "code-only.ipynb")
    data = json.loads(path.read_text())
    data["cells"] = [{k: cell[k] for k in CODE_ORDER} for cell in data["cells"][:3]]
    path.write_text(json.dumps(data, indent=1))
    run(FileNotebook(path).insert("c2", "markdown", "# Notes"))
    kind, order = _key_orders(path)[3]
    assert (kind, order) == ("markdown", [k for k in CODE_ORDER if k in order])
