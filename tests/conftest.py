"""Every test run has its own home and Jupyter dirs, and leaves the user's alone.

Sessions are saved under the Jupyter data dir and memory is read from `~/.jupyter_agent`, so a test that used
the real ones would read what the user wrote and write where the user keeps their work. For the whole run,
`HOME`, `JUPYTER_DATA_DIR`, `JUPYTER_CONFIG_DIR`, `JUPYTER_RUNTIME_DIR` and `IPYTHONDIR` point at temporary
directories that every kernel, nbclient run and JupyterLab server a test starts inherits.

The run still fails if *this run* wrote a session into the real data dir anyway (a test that builds a kernel's
environment from scratch, or code that ignores the variables): a file there counts only when it names this run's
temporary directory, so a JupyterLab the user keeps open, or another test run on the machine, never fails it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from jupyter_core.paths import jupyter_data_dir

ISOLATED_VARIABLES = ("HOME", "JUPYTER_DATA_DIR", "JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR")


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()} if root.is_dir() else set()


def _mentions(path: Path, marker: bytes) -> bool:
    try:
        return marker in path.read_bytes()
    except OSError:
        return False


@pytest.fixture(scope="session", autouse=True)
def each_run_has_its_own_home_and_jupyter_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    real_sessions = Path(jupyter_data_dir()) / "jupyter_agent" / "sessions"
    real_own = Path.home() / ".jupyter_agent"  # trusted projects, MCP approvals, memory
    before = _files(real_sessions) | _files(real_own)
    previous = {name: os.environ.get(name) for name in ISOLATED_VARIABLES}
    home = tmp_path_factory.mktemp("home")
    os.environ["HOME"] = str(home)
    os.environ["JUPYTER_DATA_DIR"] = str(tmp_path_factory.mktemp("jupyter-data"))
    os.environ["JUPYTER_CONFIG_DIR"] = str(tmp_path_factory.mktemp("jupyter-config"))
    os.environ["JUPYTER_RUNTIME_DIR"] = str(tmp_path_factory.mktemp("jupyter-runtime"))
    os.environ["IPYTHONDIR"] = str(tmp_path_factory.mktemp("ipython"))
    try:
        yield
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    marker = str(tmp_path_factory.getbasetemp()).encode()
    ours = sorted(str(p) for p in _files(real_sessions) - before if _mentions(p, marker))
    assert not ours, (
        f"the test run wrote {len(ours)} session file(s) into the real Jupyter data dir ({real_sessions}): "
        f"{ours[:5]}; give the kernel the run's HOME and JUPYTER_DATA_DIR"
    )
    # a file of the real ~/.jupyter_agent that names this run's directories (a trust, an approval) was written
    # by it, whether new or changed
    touched = sorted(str(p) for p in _files(real_own) if _mentions(p, marker))
    assert not touched, (
        f"the test run wrote into the real {real_own}: {touched[:5]}; give the kernel the run's HOME"
    )


@pytest.fixture(autouse=True)
def pure_caches_start_empty() -> None:
    """The package caches what it derives from patterns and command lines. Each test starts with those caches
    empty, so what it checks is computed by the code under test (under mutation testing, by the mutant — a
    cache filled before the mutant was switched on would hide it)."""
    from jupyter_agent.builtin_tools.files.globmatch import glob_regex
    from jupyter_agent.permissions import startup_files
    from jupyter_agent.permissions.command_patterns import compile_pattern
    from jupyter_agent.permissions.commands import split_command
    from jupyter_agent.permissions.rule_glob import glob_regex as rule_regex

    for cached in (compile_pattern, split_command, glob_regex, rule_regex):
        cached.cache_clear()
    startup_files._cache = (-1, frozenset())


@pytest.fixture(autouse=True)
def secrets_registered_by_a_test_end_with_it() -> Iterator[None]:
    """The secret registry is the process's: a value one test registers would be masked in the next test's
    requests and displays too (any run of 8 of its characters), so each test's registrations are undone after it."""
    from jupyter_agent.masking import REGISTRY

    with REGISTRY._lock:
        before = dict(REGISTRY._registered)
    yield
    with REGISTRY._lock:
        REGISTRY._registered.clear()
        REGISTRY._registered.update(before)
