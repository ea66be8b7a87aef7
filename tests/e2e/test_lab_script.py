"""`bash scripts/lab.sh` as a newcomer runs it, on a throwaway git checkout made of this one's files.

It opens a working copy of the quickstart (playground/, git-ignored), so after a session in Chromium — cells run,
an autosave — `git status` is clean and the tracked notebook byte-identical; the URL it prints opens that notebook
(not the Launcher), and so does what it hands a browser; the console has no "Could not find a provider" warning,
and Ctrl+C stops it without a traceback. Then what happens to the copy across runs: made when missing, following
the tracked notebook while the user has not changed its cells (outputs do not count), kept once they have.
"""

from __future__ import annotations

import os
import pty
import re
import shutil
import signal
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any

import nbformat
import pytest
from lab import ROOT, free_port, run_cell, settings_dir, wait_cell_done, wait_for

TRACKED = "notebooks/quickstart.ipynb"
COPY = "playground/quickstart.ipynb"


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A git checkout holding what lab.sh reads (scripts/, the quickstart, .gitignore) as they are in this
    working tree, committed, with this project's venv linked in as `.venv` (lab.sh is told to skip the install:
    it would reinstall the shared venv from the copy)."""
    repo = tmp_path / "checkout"
    shutil.copytree(ROOT / "scripts", repo / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    (repo / "notebooks").mkdir()
    shutil.copy(ROOT / TRACKED, repo / TRACKED)
    shutil.copy(ROOT / ".gitignore", repo / ".gitignore")
    (repo / ".venv").symlink_to((ROOT / ".venv").resolve())
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "checkout")
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    return repo


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def lab_env(tmp: Path, **extra: str) -> dict[str, str]:
    """The test run's own home and Jupyter dirs (tests/conftest.py), no API key, this working tree's package."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(PYTHONPATH=str(ROOT), JUPYTER_AGENT_SKIP_INSTALL="1", **extra)
    return env


class Terminal:
    """A command in a pseudo-terminal, as in a shell window: Ctrl+C is SIGINT to its process group, and
    JupyterLab asks for confirmation (stdin is a tty) — a second Ctrl+C skips it."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        master, slave = pty.openpty()
        self.process = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave, start_new_session=True
        )
        os.close(slave)
        self._master = master
        self._chunks: list[bytes] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self._master, 65536)
            except OSError:  # the other side closed: the process ended
                return
            if not chunk:
                return
            self._chunks.append(chunk)

    @property
    def output(self) -> str:
        return b"".join(self._chunks).decode(errors="replace")

    def ctrl_c(self) -> None:
        os.killpg(self.process.pid, signal.SIGINT)

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)
        self._reader.join(10)
        os.close(self._master)


def settings_with_a_short_autosave(tmp: Path) -> Path:
    """The e2e tests' JupyterLab user settings, with an autosave every second (default: every 2 minutes)."""
    settings = settings_dir(tmp)
    docmanager = settings / "@jupyterlab" / "docmanager-extension"
    docmanager.mkdir(parents=True)
    (docmanager / "plugin.jupyterlab-settings").write_text('{"autosave": true, "autosaveInterval": 1}')
    return settings


def listens(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def fake_browser(tmp: Path) -> tuple[Path, Path]:
    """A `$BROWSER` that writes down what it was asked to open."""
    opened = tmp / "opened.txt"
    script = tmp / "browser.sh"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> {opened}\n')
    script.chmod(0o755)
    return script, opened


def test_lab_sh_opens_a_working_copy_git_stays_clean_and_ctrl_c_stops_it_cleanly(
    checkout: Path, tmp_path: Path, own_server_page: Any
) -> None:
    page = own_server_page
    tracked = (checkout / TRACKED).read_bytes()
    browser, opened = fake_browser(tmp_path)
    env = lab_env(tmp_path, JUPYTERLAB_SETTINGS_DIR=str(settings_with_a_short_autosave(tmp_path)))
    env["BROWSER"] = str(browser)
    port = free_port()
    terminal = Terminal(
        # the app object in the page, for the test to look at (as every e2e test starts JupyterLab)
        ["bash", "scripts/lab.sh", f"--port={port}", "--ip=127.0.0.1", "--LabApp.expose_app_in_browser=True"],
        cwd=checkout,
        env=env,
    )
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    try:
        url_pattern = re.compile(rf"http://127\.0\.0\.1:{port}/lab/tree/quickstart\.ipynb\?token=\w+")
        wait_for(
            lambda: url_pattern.search(terminal.output) is not None, 60, f"the URL in:\n{terminal.output}"
        )
        match = url_pattern.search(terminal.output)
        assert match is not None
        url = match.group(0)
        # Jupyter Server prints its URLs before its event loop has bound the port: a browser faster than a person
        # gets "connection refused". Wait until it listens, as a person copying the URL does.
        wait_for(lambda: listens(port), 60, f"JupyterLab to listen on {port}")

        # the printed URL opens the notebook, not the Launcher
        page.goto(url)
        page.wait_for_function(
            "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
            " const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;"
            " return !!w && !!w.context && w.context.path === 'quickstart.ipynb' && !!k && k.status === 'idle'; }",
            timeout=60_000,
        )
        # and so does what lab.sh handed the browser (JupyterLab's redirect file, which holds the token)
        wait_for(lambda: opened.exists() and opened.read_text().strip() != "", 30, "the browser to be asked")
        handed = opened.read_text().split()[0]
        assert handed.startswith("file://")
        assert f":{port}/lab/tree/quickstart.ipynb?token=" in Path(handed.removeprefix("file://")).read_text()

        # a newcomer runs the first cells: the offline demo starts, its demo/ is written, outputs appear
        for index in (1, 2, 4):
            run_cell(page, index)
            wait_cell_done(page, index)
        # running them made the notebook dirty (outputs, execution counts): clean again means autosaved
        page.wait_for_function(
            "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=30_000
        )
        assert git(checkout, "status", "--porcelain", "--untracked-files=all") == ""
        assert (checkout / TRACKED).read_bytes() == tracked
        assert "offline demo" in (checkout / COPY).read_text()  # what was saved, and where
        assert (checkout / "playground" / "demo" / "sales_loader.py").is_file()
        assert not [line for line in console if "Could not find a provider" in line], console

        # Ctrl+C, then Ctrl+C again to skip the confirmation: it stops, and says nothing alarming
        terminal.ctrl_c()
        wait_for(lambda: "Shut down this Jupyter server" in terminal.output, 30, "the confirmation prompt")
        terminal.ctrl_c()
        terminal.process.wait(60)
    finally:
        terminal.close()
        print(terminal.output)  # shown when the test fails
    output = terminal.output
    assert "Traceback" not in output, output[-3000:]
    # what raised "WebsocketServer not running" at shutdown (only now and then: it comes when its task is
    # collected) is not even loaded: jupyter-collaboration's server extension, there after the test packages
    assert "jupyter_server_ydoc | extension was successfully loaded" not in output
    assert "Shutting down" in output


def lab_version(checkout: Path, tmp: Path) -> str:
    """`lab.sh --version`: everything lab.sh does before JupyterLab starts, then JupyterLab only prints its
    version."""
    result = subprocess.run(
        ["bash", "scripts/lab.sh", "--version"],
        cwd=checkout,
        env=lab_env(tmp),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_working_copy_is_made_when_missing_and_follows_the_quickstart_until_the_user_changes_it(
    checkout: Path, tmp_path: Path
) -> None:
    copy, tracked = checkout / COPY, checkout / TRACKED
    lab_version(checkout, tmp_path)
    assert copy.read_bytes() == tracked.read_bytes()

    # the quickstart changes (a git pull) while the user has not touched the copy: the copy follows it
    tracked.write_text(tracked.read_text().replace("jupyter_agent quickstart", "jupyter_agent quickstart v2"))
    assert "updated to the new" in lab_version(checkout, tmp_path)
    assert copy.read_bytes() == tracked.read_bytes()

    # run, with outputs, and opened with another Python (JupyterLab writes its version): still the quickstart
    ran = nbformat.read(copy, as_version=4)
    ran.cells[1].outputs = [nbformat.v4.new_output("stream", text="offline demo: …\n")]
    ran.cells[1].execution_count = 1
    ran.metadata["language_info"]["version"] = "3.11.2"
    nbformat.write(ran, copy)
    tracked.write_text(tracked.read_text().replace("v2", "v3"))
    assert "updated to the new" in lab_version(checkout, tmp_path)
    assert copy.read_bytes() == tracked.read_bytes()

    # the user's own changes (edited or added cells) are theirs: kept, also when the quickstart changes again
    mine = copy.read_text().replace("Run the cells top to bottom", "My notes. Run the cells top to bottom")
    copy.write_text(mine)
    assert "kept" not in lab_version(checkout, tmp_path)  # nothing to say: the quickstart did not change
    tracked.write_text(tracked.read_text().replace("v3", "v4"))
    note = lab_version(checkout, tmp_path)
    assert "kept your playground/quickstart.ipynb" in note and "delete your copy" in note
    assert copy.read_text() == mine

    # deleted: made afresh from the quickstart as it is now
    copy.unlink()
    lab_version(checkout, tmp_path)
    assert copy.read_bytes() == tracked.read_bytes()
    assert git(checkout, "status", "--porcelain", "--untracked-files=all", "--", "playground") == ""
