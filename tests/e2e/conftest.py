"""E2E fixtures: one JupyterLab server and one Chromium per session; a fresh page and notebook per test.

Without Debian's Chromium or Playwright the whole directory is skipped at collection, with one line saying
why, so `pytest tests/unit tests/kernel` (and plain `pytest`) work on a machine without a browser. On CI
(`CI=true`) a missing browser is an error instead: there the test command installs it, and a silent skip
would hide the browser tests. `JUPYTER_AGENT_CHROMIUM` points at another Chromium binary.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import pytest

CHROMIUM = os.environ.get("JUPYTER_AGENT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def _missing_browser() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not Path(CHROMIUM).is_file():
        return (
            f"e2e tests skipped: no Chromium at {CHROMIUM} (bash scripts/test.sh installs Debian's chromium; "
            "JUPYTER_AGENT_CHROMIUM names another binary)"
        )
    if importlib.util.find_spec("playwright") is None:
        return "e2e tests skipped: Playwright is not installed (pip install -e '.[test]')"
    return None


_WHY_NOT = _missing_browser()
if _WHY_NOT is not None and os.environ.get("CI", "").lower() in ("1", "true"):
    raise pytest.UsageError(_WHY_NOT.replace("e2e tests skipped", "e2e tests cannot run on CI"))


class _SkippedModule(pytest.Module):
    """An e2e test file that is not imported: every one is skipped from this one line, so pytest folds them
    into a single `SKIPPED [n] tests/e2e/conftest.py:…: e2e tests skipped: …` line."""

    def collect(self) -> list[Any]:
        pytest.skip(str(_WHY_NOT))


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    if _WHY_NOT is None:
        return None
    return _SkippedModule.from_parent(parent, path=module_path)


from jupyter_agent.testing import TEST_API_KEY, ScriptedServer  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from lab import CHROMIUM_ARGS, ROOT, Lab, ScriptBox, start_lab, stop_lab  # noqa: E402

ARTIFACTS = ROOT / "test-artifacts"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def model_server() -> Iterator[tuple[ScriptedServer, ScriptBox]]:
    box = ScriptBox()
    server = ScriptedServer(box).start()
    yield server, box
    server.stop()


@pytest.fixture(scope="session")
def lab(
    tmp_path_factory: pytest.TempPathFactory, model_server: tuple[ScriptedServer, ScriptBox]
) -> Iterator[Lab]:
    lab = start_lab(tmp_path_factory.mktemp("lab"), model_server[0].url, TEST_API_KEY)
    yield lab
    stop_lab(lab)


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """Package scope: Playwright's sync API runs an event loop on the main thread until this ends."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@contextmanager
def screenshotted_page(browser: Any, name: str) -> Iterator[Any]:
    """A page in its own browser context; its screenshot goes to the artifacts when it closes."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        yield page
    finally:
        ARTIFACTS.mkdir(exist_ok=True)
        try:
            page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
        finally:
            context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed test that used the shared server gets its kernels' stacks as a report section (taken before the
    page's teardown shuts them down): where a kernel that never answered was."""
    report = yield
    if (
        report.when == "call"
        and report.failed
        and isinstance(item, pytest.Function)
        and "lab" in item.funcargs
    ):
        report.sections.append(("kernel stacks", cast(Lab, item.funcargs["lab"]).kernel_stacks()))
    return report


@pytest.fixture
def page(browser: Any, lab: Lab, request: pytest.FixtureRequest) -> Iterator[Any]:
    try:
        with screenshotted_page(browser, request.node.name) as page:
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            yield page
    finally:
        lab.shutdown_kernels()


@pytest.fixture
def own_server_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A page for a test that starts its own JupyterLab (the shared `lab` is not started for it)."""
    with screenshotted_page(browser, request.node.name) as page:
        yield page
