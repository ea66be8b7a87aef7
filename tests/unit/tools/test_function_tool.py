"""`@tool`: each docstring style describes the tool and its fields, and the decorated function keeps its type."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import jupyter_agent
from jupyter_agent.tools import tool


@tool
def google(key: str, limit: int = 10) -> str:
    """Find a key in the catalogue.

    Looks in the archive too,
    when the catalogue has nothing.

    Args:
        key: the catalogue key,
            e.g. "sku-12"
        limit (int): how many rows at most

    Returns:
        The rows.

    Raises:
        KeyError: when nothing matches.
    """
    return key


@tool
def rest(key: str, limit: int = 10) -> str:
    """Find a key in the catalogue.

    Looks in the archive too,
    when the catalogue has nothing.

    :param key: the catalogue key,
        e.g. "sku-12"
    :param int limit: how many rows at most
    :returns: The rows.
    :raises KeyError: when nothing matches.
    """
    return key


@tool
def numpy(key: str, limit: int = 10) -> str:
    """Find a key in the catalogue.

    Looks in the archive too,
    when the catalogue has nothing.

    Parameters
    ----------
    key : str
        the catalogue key,
        e.g. "sku-12"
    limit : int, optional
        how many rows at most

    Returns
    -------
    str
        The rows.
    """
    return key


@pytest.mark.parametrize("made", [google, rest, numpy], ids=["google", "rest", "numpy"])
def test_every_docstring_style_gives_the_description_and_each_fields_doc(made: Any) -> None:
    param = made.to_param()
    assert param["description"] == (
        "Find a key in the catalogue.\n\nLooks in the archive too,\nwhen the catalogue has nothing."
    )
    properties = param["input_schema"]["properties"]
    assert properties["key"]["description"] == 'the catalogue key, e.g. "sku-12"'
    assert properties["limit"]["description"] == "how many rows at most"


def test_a_function_without_a_docstring_is_described_by_its_name() -> None:
    @tool
    def bare(x: int) -> int:
        return x

    assert bare.to_param()["description"] == "Calls the Python function bare."
    assert "description" not in bare.to_param()["input_schema"]["properties"]["x"]


def test_the_decorated_function_is_still_called_as_itself() -> None:
    assert google("sku-1", limit=2) == "sku-1"


_CHECKED = '''
from jupyter_agent import tool


@tool
def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


@tool(read_only=True, name="lookup")
async def lookup(key: str) -> list[str]:
    """Find a key."""
    return [key]


total: int = add(1, b=2)
coroutine = lookup("k")
add("1")  # error: a str for an int
add(1, c=3)  # error: no parameter c
text: str = add(1)  # error: an int is not a str
'''


def test_pyright_sees_the_decorated_functions_signature(tmp_path: Path) -> None:
    """`FunctionTool[P, R]`: calls to a decorated function are checked against its own parameters and
    result (it was `(*args: Any, **kwargs: Any) -> Any`, so none of these errors were found)."""
    pyright = Path(sys.executable).parent / "pyright"
    assert pyright.exists(), "pyright is a test dependency (pip install -e '.[test]')"
    (tmp_path / "checked.py").write_text(textwrap.dedent(_CHECKED), encoding="utf-8")
    package_root = Path(jupyter_agent.__file__).parent.parent
    config = {"typeCheckingMode": "strict", "pythonVersion": "3.11", "extraPaths": [str(package_root)]}
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    done = subprocess.run(
        [str(pyright), "--outputjson", "--pythonpath", sys.executable, "checked.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(done.stdout)
    errors = sorted(
        {d["range"]["start"]["line"] + 1 for d in report["generalDiagnostics"] if d["severity"] == "error"}
    )
    lines = textwrap.dedent(_CHECKED).splitlines()
    expected = [i + 1 for i, line in enumerate(lines) if "# error" in line]
    assert errors == expected, json.dumps(report["generalDiagnostics"], indent=1)
