"""The watch tests' IPython shell: its own IPYTHONDIR, no history, no exception left from another test."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    config = Config()
    config.HistoryManager.enabled = False
    instance = InteractiveShell.instance(config=config)
    for name in ("last_exc", "last_value", "last_type", "last_traceback"):
        monkeypatch.delattr(sys, name, raising=False)
    yield instance
    InteractiveShell.clear_instance()
