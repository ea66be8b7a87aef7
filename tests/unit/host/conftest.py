"""Host tests: a real IPython shell (terminal, no kernel) with the extension loaded, in the test's own directory
and Jupyter data dir (saved sessions) — never the user's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell
from project_shell_kit import project_shell, serve

from jupyter_agent.testing import TEST_API_KEY

__all__ = ["project_shell", "serve"]  # the Claude Code project tests' fixtures


@pytest.fixture(autouse=True)
def jupyter_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "jupyter-data"
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(data))
    return data


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_API_KEY)
    monkeypatch.delenv("ANTHROPIC_MODEL", raising=False)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    ip = InteractiveShell()
    ip.run_line_magic("load_ext", "jupyter_agent")
    yield ip
    ip.run_line_magic("unload_ext", "jupyter_agent")
    ip.clear_instance()
