"""Git: status, diff, log, show and blame on a real repository, read-only, confined to the roots, and never
running a program the repository's configuration names (the hostile repository below names one for every key
git would run)."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest
from dispatch_harness import ToolHarness

from jupyter_agent.builtin_tools.catalog import builtin_tools
from jupyter_agent.builtin_tools.git import GitTool
from jupyter_agent.permissions.policy import Mode

IDENTITY = {
    "GIT_AUTHOR_NAME": "Ada",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **IDENTITY}
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True
    ).stdout


def make_repo(repo: Path) -> Path:
    """Two commits: `app.py` added, then changed; then a change in the work tree and one staged."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "app.py").write_text("def main():\n    return 1\n")
    (repo / "notes.md").write_text("# Notes\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "Add the app")
    (repo / "app.py").write_text("def main():\n    return 2\n")
    git(repo, "commit", "-q", "-am", "Return two")
    (repo / "app.py").write_text("def main():\n    return 3\n")
    (repo / "notes.md").write_text("# Notes\nstaged line\n")
    git(repo, "add", "notes.md")
    return repo


def harness(root: Path, *, roots: tuple[Path, ...] = (), mode: Mode = "default") -> ToolHarness:
    """The Git tool alone, in the default mode: it reads, so nobody is asked."""
    return ToolHarness(root, [GitTool()], roots=roots, mode=mode)


def snapshot(repo: Path) -> dict[str, str]:
    """Every file of the repository, `.git` included, by content hash: what "nothing written" compares."""
    return {
        str(path.relative_to(repo)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(repo.rglob("*"))
        if path.is_file()
    }


def test_each_subcommand_reads_the_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    tools = harness(repo)
    status = tools.ok("Git", command="status", args=["--short"]).content
    assert status.splitlines() == [" M app.py", "M  notes.md"]
    diff = tools.ok("Git", command="diff").content
    assert "-    return 2\n+    return 3" in diff and "notes.md" not in diff
    staged = tools.ok("Git", command="diff", args=["--cached", "--stat"]).content
    assert "notes.md | 1 +" in staged
    log = tools.ok("Git", command="log", args=["--format=%s", "-n5"]).content
    assert log.splitlines() == ["Return two", "Add the app"]
    show = tools.ok("Git", command="show", args=["HEAD~1:app.py"]).content
    assert show == "def main():\n    return 1"
    first, last = git(repo, "rev-parse", "HEAD~1", "HEAD").split()
    blame = tools.ok("Git", command="blame", args=["-s", "-l", "HEAD"], paths=["app.py"])
    assert blame.content.splitlines() == [f"^{first[:39]} 1) def main():", f"{last} 2)     return 2"]


def test_paths_limit_the_command(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    log = harness(repo).ok("Git", command="log", args=["--format=%s"], paths=["notes.md"]).content
    assert log == "Add the app"


def test_nothing_in_the_repository_changes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    os.utime(repo / "app.py", (1_000_000_000, 1_000_000_000))  # stat-dirty: a status would refresh the index
    before = snapshot(repo)
    tools = harness(repo)
    for command in ("status", "diff", "log", "show"):
        tools.ok("Git", command=command)
    tools.ok("Git", command="blame", paths=["app.py"])
    assert snapshot(repo) == before


@pytest.mark.parametrize(
    ("command", "args", "named"),
    [
        ("diff", ["--output=/tmp/x"], "--output=/tmp/x"),
        ("diff", ["--ext-diff"], "--ext-diff"),
        ("show", ["--textconv"], "--textconv"),
        ("log", ["--show-signature"], "--show-signature"),
        ("log", ["--format=%G? %h"], "%G"),
        ("diff", ["--no-index"], "--no-index"),
        ("blame", ["--contents=/etc/passwd"], "--contents"),
        ("show", ["--exec-path=/tmp"], "--exec-path"),
        ("blame", ["-S/tmp/revs"], "-S/tmp/revs"),
        ("status", ["HEAD"], "takes no revision"),
        ("log", ["--out=x"], "--out=x"),
    ],
)
def test_an_option_that_writes_or_runs_is_refused_by_name(
    tmp_path: Path, command: str, args: list[str], named: str
) -> None:
    repo = make_repo(tmp_path / "repo")
    paths = ["app.py"] if command == "blame" else []
    result = harness(repo).call("Git", command=command, args=args, paths=paths)
    assert result.is_error and result.error_code == "INVALID_ARGS"
    assert named in result.content


def test_paths_outside_the_roots_are_refused_symlinks_included(tmp_path: Path) -> None:
    outside = make_repo(tmp_path / "outside")
    root = tmp_path / "root"
    make_repo(root / "repo")
    (root / "repo" / "link").symlink_to(outside)
    tools = harness(root / "repo", roots=(root,))
    for call in (
        {"command": "log", "paths": [str(outside / "app.py")]},
        {"command": "log", "paths": ["link/app.py"]},
        {"command": "status", "repo": str(outside)},
        {"command": "status", "repo": "link"},
    ):
        result = tools.call("Git", **call)
        assert result.error_code == "OUTSIDE_ROOTS", (call, result.content)


def test_a_work_tree_above_the_root_is_limited_to_the_root(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "notebooks").mkdir()
    (repo / "notebooks" / "a.py").write_text("x = 1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "Add a notebook")
    (repo / "notebooks" / "a.py").write_text("x = 2\n")
    tools = harness(repo / "notebooks")
    assert tools.ok("Git", command="log", args=["--format=%s"]).content == "Add a notebook"
    assert tools.ok("Git", command="status", args=["--short"]).content == " M a.py"
    since_first = tools.ok("Git", command="diff", args=["HEAD~2"]).content
    assert "+x = 2" in since_first and "app.py" not in since_first
    refused = tools.call("Git", command="show", args=["HEAD:app.py"])
    assert refused.error_code == "OUTSIDE_ROOTS"
    assert tools.ok("Git", command="show", args=["HEAD:./a.py"]).content == "x = 1"


HOSTILE_KEYS = (
    "core.fsmonitor",
    "core.pager",
    "diff.external",
    "core.hooksPath",
    "filter.evil.clean",
    "filter.evil.smudge",
    "filter.evil.process",
    "diff.evil.textconv",
    "diff.evil.command",
    "gpg.program",
)


def hostile_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose configuration names, for every key git could run, a script that leaves a marker."""
    repo = make_repo(tmp_path / "hostile")
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    markers = tmp_path / "markers"
    markers.mkdir()
    script = tmp_path / "evil.sh"
    script.write_text(f'#!/bin/sh\ntouch "{markers}/ran-$$"\ncat\n')
    script.chmod(0o755)
    for key in HOSTILE_KEYS:
        git(repo, "config", key, str(script))
    git(repo, "config", "filter.evil.required", "true")
    git(repo, "config", "log.showSignature", "true")
    os.utime(repo / "app.py", (1_000_000_000, 1_000_000_000))
    return repo, markers


def test_the_hostile_repository_really_runs_its_script_under_plain_git(tmp_path: Path) -> None:
    """The control: the same repository makes plain `git status` and `git diff` leave markers."""
    repo, markers = hostile_repo(tmp_path)
    subprocess.run(["git", "status"], cwd=repo, capture_output=True, check=False)
    subprocess.run(["git", "diff"], cwd=repo, capture_output=True, check=False)
    assert list(markers.iterdir())


def test_a_hostile_repository_runs_no_program(tmp_path: Path) -> None:
    repo, markers = hostile_repo(tmp_path)
    tools = harness(repo)
    outputs = [
        tools.ok("Git", command="status").content,
        tools.ok("Git", command="diff").content,
        tools.ok("Git", command="diff", args=["--cached"]).content,
        tools.ok("Git", command="log", args=["-p", "-n2"]).content,
        tools.ok("Git", command="show").content,
        tools.ok("Git", command="blame", paths=["app.py"]).content,
    ]
    assert "return 3" in outputs[1] and "staged line" in outputs[2]
    assert list(markers.iterdir()) == []


def test_git_runs_in_plan_mode_and_is_offered_without_bash(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert harness(repo, mode="plan").ok("Git", command="log", args=["--oneline"]).content
    assert GitTool.name in {tool.name for tool in builtin_tools()}


def test_a_directory_outside_any_repository_says_so(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    result = harness(plain).call("Git", command="status")
    assert result.error_code == "INVALID_ARGS" and "not inside a git work tree" in result.content


def test_a_secret_in_the_output_is_masked(tmp_path: Path) -> None:
    from jupyter_agent.masking import register

    repo = make_repo(tmp_path / "repo")
    secret = "sk-live-" + "q8Zr4Lw2Xv9Tn3Mb"
    register("GIT_TEST_TOKEN", secret)
    (repo / "app.py").write_text(f"TOKEN = '{secret}'\n")
    diff = harness(repo).ok("Git", command="diff").content
    assert secret not in diff and "[redacted: GIT_TEST_TOKEN]" in diff


def test_a_path_a_deny_rule_hides_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    tools = ToolHarness(repo, [GitTool()], deny=["Read(notes.md)"])
    refused = tools.call("Git", command="log", paths=["notes.md"])
    assert refused.error_code == "DENIED" and "notes.md" in refused.content
    assert not tools.call("Git", command="log", paths=["app.py"]).is_error
