"""E2E fixtures: one JupyterLab server and one Chromium per session; a fresh page and notebook per test."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_agent.testing import TEST_API_KEY, ScriptedServer

sys.path.insert(0, str(Path(__file__).parent))
from lab import CHROMIUM_ARGS, ROOT, Lab, ScriptBox, start_lab

ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


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
    lab.process.terminate()
    try:
        lab.process.wait(10)
    except Exception:
        lab.process.kill()


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """Package scope: Playwright's sync API runs an event loop on the main thread until this ends."""
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian chromium is not installed (scripts/install.sh --browser installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any, lab: Lab, request: pytest.FixtureRequest) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    finally:
        context.close()
        lab.shutdown_kernels()
