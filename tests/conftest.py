"""Every test run leaves the user's Jupyter data dir alone.

Sessions are saved under the Jupyter data dir, so a kernel a test starts without its own `JUPYTER_DATA_DIR`
would write into the real one (`~/.local/share/jupyter`). For the whole run, `JUPYTER_DATA_DIR` points at a
temporary directory that every kernel, nbclient run and JupyterLab server a test starts inherits; and the run
fails if the real data dir's session store gained files anyway (a test that builds a kernel's environment from
scratch, or code that ignores the variable).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from jupyter_core.paths import jupyter_data_dir


def _files(root: Path) -> set[str]:
    return {str(p) for p in root.rglob("*") if p.is_file()} if root.is_dir() else set()


@pytest.fixture(scope="session", autouse=True)
def the_real_jupyter_data_dir_is_not_written(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    sessions = Path(jupyter_data_dir()) / "jupyter_agent" / "sessions"
    before = _files(sessions)
    previous = os.environ.get("JUPYTER_DATA_DIR")
    os.environ["JUPYTER_DATA_DIR"] = str(tmp_path_factory.mktemp("jupyter-data"))
    try:
        yield
    finally:
        if previous is None:
            del os.environ["JUPYTER_DATA_DIR"]
        else:
            os.environ["JUPYTER_DATA_DIR"] = previous
    created = sorted(_files(sessions) - before)
    assert not created, (
        f"the test run wrote {len(created)} file(s) into the real Jupyter data dir ({sessions}): "
        f"{created[:5]}; give the kernel a temporary JUPYTER_DATA_DIR"
    )
