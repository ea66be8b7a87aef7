"""The `tree` fixture: a home and a git project in the test's own directory (see project_tree.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from project_tree import Tree


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    root = Path(os.path.realpath(tmp_path))
    (root / "home").mkdir()
    (root / "project" / ".git").mkdir(parents=True)
    return Tree(home=root / "home", project=root / "project")
