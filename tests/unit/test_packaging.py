"""What pip and JupyterLab read about the package agrees with itself: the distribution's name everywhere it is
written, the labextension's folder, the JupyterLab floor against the JupyterLab the extension is built for, the
floors file against pyproject.toml, and the Python versions against the classifiers."""

from __future__ import annotations

import importlib.util
import json
import re
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from packaging.requirements import Requirement

from jupyter_agent import _jupyter_labextension_paths
from jupyter_agent.base.distribution import DISTRIBUTION

ROOT = Path(__file__).resolve().parents[2]


def pyproject() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)


def dependency(name: str) -> Requirement:
    (found,) = [r for r in map(Requirement, pyproject()["project"]["dependencies"]) if r.name == name]
    return found


def floors_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("floors", ROOT / "scripts" / "floors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_distribution_is_named_the_same_wherever_it_is_written() -> None:
    assert pyproject()["project"]["name"] == DISTRIBUTION == "jupyter-claude-agent"
    install = json.loads((ROOT / "install.json").read_text(encoding="utf-8"))
    assert install["packageName"] == DISTRIBUTION
    assert install["uninstallInstructions"].endswith(f"uninstall the package {DISTRIBUTION}")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"pip install {DISTRIBUTION}\n" in readme
    assert "%load_ext jupyter_agent" in readme


def test_the_labextension_is_installed_where_its_npm_name_says() -> None:
    npm_name = json.loads((ROOT / "labextension" / "package.json").read_text(encoding="utf-8"))["name"]
    folder = f"share/jupyter/labextensions/{npm_name}"
    shared = pyproject()["tool"]["hatch"]["build"]["targets"]["wheel"]["shared-data"]
    assert shared == {"jupyter_agent/labextension": folder, "install.json": f"{folder}/install.json"}
    assert _jupyter_labextension_paths() == [{"src": "labextension", "dest": npm_name}]
    for script in ("install.sh", "wheel_check.sh"):
        assert f"/{folder}" in (ROOT / "scripts" / script).read_text(encoding="utf-8"), script


def test_the_jupyterlab_floor_is_the_jupyterlab_the_extension_is_built_for() -> None:
    """The built extension requires `^X` of JupyterLab's packages, X being the builder's `@jupyterlab/core-meta`:
    on an older JupyterLab, `jupyter labextension list` calls it incompatible."""
    package = json.loads((ROOT / "labextension" / "package.json").read_text(encoding="utf-8"))
    built_for = package["devDependencies"]["@jupyterlab/core-meta"]
    lab = dependency("jupyterlab")
    assert f">={built_for}" in {str(s) for s in lab.specifier}, (str(lab), built_for)


def test_the_floors_file_is_what_floors_py_makes_of_pyproject() -> None:
    stale = "stale: run `python scripts/floors.py --write`"
    assert (ROOT / "scripts" / "floors.txt").read_text(encoding="utf-8") == floors_script().constraints(), (
        stale
    )


def test_every_dependency_has_a_floor_in_the_floors_file() -> None:
    pinned = {
        Requirement(line).name: str(Requirement(line).specifier)
        for line in (ROOT / "scripts" / "floors.txt").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    }
    for requirement in map(Requirement, pyproject()["project"]["dependencies"]):
        (lowest,) = [s for s in requirement.specifier if s.operator in (">=", "==")]
        assert pinned[requirement.name] == f"=={lowest.version}", requirement


@pytest.mark.parametrize(
    ("requirement", "floor"),
    [
        ("ipykernel>=7.0", "ipykernel==7.0"),
        ("tree-sitter>=0.26,<0.27", "tree-sitter==0.26"),
        ("rg==14.1", "rg==14.1"),
    ],
)
def test_a_floor_is_the_lower_bound(requirement: str, floor: str) -> None:
    assert floors_script().floor(requirement) == floor


@pytest.mark.parametrize("requirement", ["pyyaml", "pyyaml<7", "pydantic!=2.0"])
def test_a_dependency_without_a_lower_bound_is_refused_with_the_fix(requirement: str) -> None:
    with pytest.raises(ValueError, match=r"no single lower bound .* give it the oldest version"):
        floors_script().floor(requirement)


def test_the_classifiers_name_the_pythons_ci_runs() -> None:
    project = pyproject()["project"]
    pythons = sorted(
        c.rsplit(" :: ", 1)[1]
        for c in project["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    )
    assert pythons == ["3.11", "3.12", "3.13"]
    assert project["requires-python"] == ">=3.11"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "scripts/test_python.sh 3.12" in ci and "scripts/test_python.sh 3.13" in ci


#: The documentation page with the CI table and the floors table (the README points to it).
DEVELOPMENT = ROOT / "docs" / "development.md"


def docs_table(after: str) -> list[list[str]]:
    """The rows of the first Markdown table after the line `after` in docs/development.md, cells stripped."""
    section = DEVELOPMENT.read_text(encoding="utf-8").split(after, 1)[1]
    lines = [line for line in section.lstrip("\n").split("\n\n", 1)[0].splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]


def test_the_docs_floors_table_is_the_floors_file() -> None:
    rows = docs_table("<!-- floors: checked against scripts/floors.txt by tests/unit/test_packaging.py -->")
    floors = [
        line.split("==")
        for line in (ROOT / "scripts" / "floors.txt").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    assert [row[:2] for row in rows] == floors
    assert all(row[2] for row in rows), "say why each floor is not older"


def test_the_docs_ci_table_lists_the_jobs_ci_runs_on_the_python_each_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    jobs = re.findall(
        r"^job (?:--beside )?\"[^\"]+\" bash (scripts/\S+(?: [\w.-]+)?)", ci, flags=re.MULTILINE
    )
    rows = {row[0].strip("`"): row for row in docs_table("## Which Pythons and versions CI runs")}
    assert "scripts/install.sh" in jobs and "scripts/lab.sh --version" in jobs
    listed = sorted(job for job in jobs if job.split()[0] not in ("scripts/install.sh", "scripts/lab.sh"))
    assert sorted(rows)[1:] == listed  # the first row is the install and lab.sh's
    for job in listed:
        version = job.split()[1] if job.startswith("scripts/test_python.sh ") else "3.11"
        assert rows[job][1] == version, job
