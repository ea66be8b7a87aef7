"""Notebooks nobody here wrote (tests/fixtures/notebooks, see its README): nbformat's v2/v3/v4 test files, a
Colab-saved notebook, and CRLF / byte-order-mark copies of them. Ids stay stable and agree between Read and
NotebookRead; an edit keeps the file's layout so its git diff is only the change."""

from __future__ import annotations

import codecs
import difflib
import json
import re
import shutil
from asyncio import run
from pathlib import Path

import nbformat
import pytest
from dispatch_harness import ToolHarness

from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.builtin_tools.notebook import notebook_tools
from jupyter_agent.notebook.file_backend import FileNotebook, load_notebook, serialize
from jupyter_agent.notebook.ops import Replace
from jupyter_agent.notebook.provider import NotebookProvider
from jupyter_agent.tools.context import ToolServices

FIXTURES = Path(__file__).parents[2] / "fixtures" / "notebooks"
COLAB = "colab-holiday-shopping.ipynb"


def copy(name: str, to: Path, *, crlf: bool = False, bom: bool = False) -> Path:
    data = (FIXTURES / name).read_bytes()
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    if bom:
        data = codecs.BOM_UTF8 + data
    target = to / name
    target.write_bytes(data)
    return target


def session_at(root: Path) -> ToolHarness:
    """Read, NotebookRead and NotebookEdit in one context, called through the Dispatcher as the loop calls them."""
    notebooks = ToolServices(notebooks=NotebookProvider(default_path=None))
    return ToolHarness(root, [*file_tools(), *notebook_tools()], mode="bypassPermissions", services=notebooks)


def shown_ids(text: str) -> list[str]:
    return re.findall(r'<cell id="([^"]*)"', text)


@pytest.mark.parametrize("name", ["nbformat-test2.ipynb", "nbformat-test3.ipynb"])
def test_v2_and_v3_notebooks_keep_the_same_ids_on_every_read(name: str, tmp_path: Path) -> None:
    path = copy(name, tmp_path)
    first = [c.id for c in run(FileNotebook(path).cells())]
    second = [c.id for c in run(FileNotebook(path).cells())]
    assert first == second == [f"cell-{i}" for i in range(len(first))]


def test_a_v3_notebook_can_be_read_by_id_and_edited_by_id(tmp_path: Path) -> None:
    path = copy("nbformat-test3.ipynb", tmp_path)
    session = session_at(tmp_path)
    session.ok("NotebookRead", notebook_path=str(path), cell_id="cell-1")
    session.ok("NotebookEdit", notebook_path=str(path), cell_id="cell-1", new_source="# replaced")
    cells = nbformat.read(path, as_version=4).cells
    assert cells[1].source == "# replaced" and cells[1].id == "cell-1"
    nbformat.validate(nbformat.read(path, as_version=4))


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("nbformat-invalid_unique_cell_id.ipynb", ["dup", "cell-1"]),
        ("nbformat-invalid_cell_id.ipynb", ["cell-0"]),
        ("nbformat-v4_5_no_cell_id.ipynb", ["cell-0"]),
        ("nbformat-test3.ipynb", None),
    ],
)
def test_read_and_notebook_read_show_the_same_ids(
    name: str, expected: list[str] | None, tmp_path: Path
) -> None:
    path = copy(name, tmp_path)
    session = session_at(tmp_path)
    by_read = shown_ids(session.ok("Read", file_path=str(path)).content)
    by_notebook_read = shown_ids(session.ok("NotebookRead", notebook_path=str(path)).content)
    assert by_read == by_notebook_read
    if expected is not None:
        assert by_read == expected


def test_a_cell_read_with_read_can_be_replaced_by_the_id_read_showed(tmp_path: Path) -> None:
    path = copy("nbformat-invalid_unique_cell_id.ipynb", tmp_path)
    session = session_at(tmp_path)
    session.ok("Read", file_path=str(path))
    session.ok("NotebookEdit", notebook_path=str(path), cell_id="cell-1", new_source="print('second')")
    assert [c.source for c in nbformat.read(path, as_version=4).cells][1] == "print('second')"


LAYOUTS = [
    (COLAB, {}),
    ("nbformat-test4.5.ipynb", {}),
    ("nbformat-test4.ipynb", {}),
    ("nbformat-test4.5.ipynb", {"crlf": True}),
    (COLAB, {"crlf": True, "bom": True}),
]


@pytest.mark.parametrize(("name", "variant"), LAYOUTS)
def test_an_unchanged_notebook_serializes_to_the_bytes_it_was_read_from(
    name: str, variant: dict[str, bool], tmp_path: Path
) -> None:
    data = copy(name, tmp_path, **variant).read_bytes()
    nb = json.loads(data)
    _, layout = load_notebook(data, name)
    assert serialize(nb, layout) == data


def changed_lines(before: bytes, after: bytes) -> list[str]:
    diff = difflib.unified_diff(
        before.decode("utf-8-sig").splitlines(), after.decode("utf-8-sig").splitlines(), n=0, lineterm=""
    )
    return [line for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---"))]


@pytest.mark.parametrize("variant", [{}, {"crlf": True, "bom": True}])
def test_editing_a_colab_notebook_keeps_its_layout(variant: dict[str, bool], tmp_path: Path) -> None:
    path = copy(COLAB, tmp_path, **variant)
    before = path.read_bytes()
    book = FileNotebook(path)
    cells = run(book.cells())
    (edited,) = run(
        book.apply([Replace(id=cells[2].id, source="print('gift ideas')", expect=cells[2].source)])
    )
    assert edited.ok
    after = path.read_bytes()
    changed = changed_lines(before, after)
    # Colab files are nbformat 4.0: the first write stores the ids the model was shown (4.5's rule).
    ids = [line for line in changed if re.fullmatch(r'\+\s+"id": "cell-\d+",?', line)]
    assert ids and len(ids) == len(cells)
    assert '-  "nbformat_minor": 0,' in changed and '+  "nbformat_minor": 5,' in changed
    rest = [line for line in changed if line not in ids and "nbformat_minor" not in line]
    assert all(line.startswith("-") for line in rest[:-1])
    assert rest[-1] == "+        \"print('gift ideas')\""
    assert after.startswith(codecs.BOM_UTF8) == variant.get("bom", False)
    assert not after.endswith(b"\n")
    if variant.get("crlf"):
        assert after.count(b"\n") == after.count(b"\r\n")
    else:
        assert b"\r" not in after


def test_a_cell_inserted_into_a_colab_notebook_takes_the_files_key_order(tmp_path: Path) -> None:
    path = copy(COLAB, tmp_path)
    book = FileNotebook(path)
    first = run(book.cells())[0]
    run(book.insert(first.id, "markdown", "## Added"))
    nb = json.loads(path.read_bytes())
    existing, added = nb["cells"][0], nb["cells"][1]
    assert added["source"] == ["## Added"]
    assert [k for k in added if k in existing] == [k for k in existing if k in added]
    assert list(added)[:3] == ["id", "cell_type", "source"]


def test_an_edited_nbformat_file_keeps_the_nbformat_layout(tmp_path: Path) -> None:
    path = copy("nbformat-test4.5.ipynb", tmp_path)
    before = path.read_bytes()
    book = FileNotebook(path)
    cell = run(book.cells())[1]
    (edited,) = run(book.apply([Replace(id=cell.id, source="x = 1", expect=cell.source)]))
    assert edited.ok
    changed = changed_lines(before, path.read_bytes())
    assert changed[-1] == '+    "x = 1"' and all(line.startswith("-") for line in changed[:-1])


def test_a_v3_notebook_written_once_becomes_a_valid_v4_file(tmp_path: Path) -> None:
    path = copy("nbformat-test3.ipynb", tmp_path)
    shutil.copy(path, tmp_path / "before.ipynb")
    run(FileNotebook(path).insert(None, "markdown", "# top"))
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.nbformat == 4 and nb.cells[0].source == "# top"
    assert [c.id for c in nb.cells][1:4] == ["cell-0", "cell-1", "cell-2"]
