"""Protected paths as data: which writes always ask (patterns, kernel start-up modules), what the Bash sandbox
binds read-only, pins and hides in a real directory tree, and how hosts are put in canonical form."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from jupyter_agent.base.hosts import canonical_host
from jupyter_agent.builtin_tools.web.addresses import forbidden
from jupyter_agent.permissions import sandbox_guard
from jupyter_agent.permissions.policy import Ask, CallFacts, PermissionPolicy
from jupyter_agent.permissions.protected import DEFAULT_PROTECTED_PATHS, protected_match
from jupyter_agent.permissions.sandbox_guard import (
    MAX_DEPTH,
    guarded,
    remove_new_startup_files,
    removed_note,
    startup_files,
)
from jupyter_agent.permissions.startup_files import shadowed_module, startup_modules


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("ipykernel_launcher.py", "ipykernel_launcher"),
        ("json.py", "json"),
        ("IPython/__init__.py", "IPython"),
        ("zmq/__init__.pyc", "zmq"),
        ("zmq.cpython-311-x86_64-linux-gnu.so", "zmq"),
        ("traitlets.pyd", "traitlets"),
        ("sitecustomize.py", "sitecustomize"),
        ("zmq/backend.py", None),
        ("sub/json.py", None),
        ("notes.py", None),
        ("json.txt", None),
        ("os.py", None),  # imported before the working directory is on sys.path
        ("site/__init__.py", None),
        ("a/b/__init__.py", None),
        ("json", None),
    ],
)
def test_a_top_level_module_that_shadows_what_the_kernel_imports(path: str, expected: str | None) -> None:
    assert shadowed_module(path) == expected


def test_the_kernel_modules_include_what_this_process_imported() -> None:
    import email.mime.text  # noqa: F401  # a module no kernel list names

    assert {"email", "ipykernel", "IPython", "json"} <= startup_modules()
    assert "os" not in startup_modules() and "sys" not in startup_modules()


@pytest.mark.parametrize(
    ("path", "pattern"),
    [
        (".git/hooks/pre-commit", ".git/**"),
        ("sub/.git/config", ".git/**"),
        (".env.local", ".env*"),
        (".claude/settings.json", ".claude/**"),
        (".venv/lib/python3.11/site-packages/evil.pth", "*.pth"),
        ("usercustomize.py", "usercustomize.py"),
        ("ipykernel_launcher.py", "a kernel start-up module (ipykernel_launcher)"),
        ("src/app.py", None),
        ("docs/env.md", None),
    ],
)
def test_protected_patterns_and_start_up_modules(path: str, pattern: str | None) -> None:
    assert protected_match([path], DEFAULT_PROTECTED_PATHS) == pattern


def test_a_write_to_a_start_up_module_asks_even_in_accept_edits() -> None:
    facts = CallFacts(
        tool="Write",
        subject="ipykernel_launcher.py",
        rule_kind="path",
        kind="edit",
        read_only=False,
        access="write",
    )
    decision = PermissionPolicy(mode="acceptEdits").decide(facts)
    assert isinstance(decision, Ask) and "kernel start-up module" in decision.reason
    read = CallFacts(
        tool="Read",
        subject="ipykernel_launcher.py",
        rule_kind="path",
        kind="read",
        read_only=True,
        access="read",
    )
    assert PermissionPolicy(mode="acceptEdits").protected_pattern(read) is None


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("")
    (root / ".git" / "objects").mkdir()
    (root / "sub" / ".git" / "hooks").mkdir(parents=True)
    (root / ".vscode").mkdir()
    (root / ".vscode" / "tasks.json").write_text("")
    (root / ".env").write_text("")
    (root / "json.py").write_text("")
    (root / "src" / "deep").mkdir(parents=True)
    (root / "src" / "app.py").write_text("")
    (root / "node_modules" / "x" / ".git" / "hooks").mkdir(parents=True)
    site = root / ".venv" / "lib" / "python3.11" / "site-packages"
    (site / "pkg").mkdir(parents=True)
    (site / "a.pth").write_text("")
    (site / "pkg" / "b.pth").write_text("")
    (root / "link").symlink_to(root / ".env")
    return root


def test_the_sandbox_binds_existing_protected_paths_read_only_and_pins_their_folders(tree: Path) -> None:
    found = guarded([tree])
    relative = sorted(p.relative_to(tree).as_posix() for p in found.readonly)
    assert relative == [
        ".env",
        ".git/config",
        ".git/hooks",
        ".venv/lib/python3.11/site-packages/a.pth",
        ".vscode",
        "json.py",
        "sub/.git/hooks",
    ]
    pinned = sorted(p.relative_to(tree).as_posix() for p in found.pinned)
    assert pinned == [
        ".git",
        ".venv",
        ".venv/lib",
        ".venv/lib/python3.11",
        ".venv/lib/python3.11/site-packages",
        "sub",
        "sub/.git",
    ]
    args = found.bwrap_args()
    order = [args[i + 1] for i in range(0, len(args), 3) if args[i] in ("--bind", "--ro-bind")]
    depths = [len(Path(p).parts) for p in order]
    assert depths == sorted(depths), "an outer mount after an inner one would cover it"


def test_the_walk_is_bounded_in_depth(tree: Path) -> None:
    deep = tree / "/".join(f"d{i}" for i in range(MAX_DEPTH + 1))
    deep.mkdir(parents=True)
    (deep / ".env").write_text("")
    assert deep / ".env" not in guarded([tree]).readonly


def test_credential_stores_and_the_runtime_dir_are_hidden_unless_a_root_is_inside(tmp_path: Path) -> None:
    from jupyter_core.paths import jupyter_runtime_dir

    home = Path.home()
    (home / ".ssh").mkdir(exist_ok=True)
    (home / ".netrc").write_text("")
    runtime = Path(jupyter_runtime_dir())
    runtime.mkdir(parents=True, exist_ok=True)
    found = guarded([tmp_path])
    assert home / ".ssh" in found.hidden_dirs and runtime.resolve() in found.hidden_dirs
    assert home / ".netrc" in found.hidden_files
    assert ["--ro-bind", "/dev/null", str(home / ".netrc")] == found.bwrap_args()[-3:]
    inside = guarded([home / ".ssh"])
    assert home / ".ssh" not in inside.hidden_dirs


def test_new_start_up_files_are_found_and_removed_and_old_ones_kept(tmp_path: Path) -> None:
    (tmp_path / "json.py").write_text("old")
    before = startup_files([tmp_path])
    assert before == {tmp_path / "json.py"}
    (tmp_path / "ipykernel_launcher.py").write_text("new")
    (tmp_path / "zmq").mkdir()
    (tmp_path / "zmq" / "__init__.py").write_text("new")
    (tmp_path / "notes.py").write_text("mine")
    removed = remove_new_startup_files([tmp_path], before)
    assert removed == [str(tmp_path / "ipykernel_launcher.py"), str(tmp_path / "zmq" / "__init__.py")]
    assert (tmp_path / "json.py").exists() and (tmp_path / "notes.py").exists()
    assert "next start" in removed_note(removed) and "Write tool" in removed_note(removed)
    assert remove_new_startup_files([tmp_path / "missing"], set()) == []


@pytest.mark.parametrize(
    ("host", "canonical"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("0x7f.0.0.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("LOCALHOST.", "127.0.0.1"),
        ("app.localhost", "127.0.0.1"),
        ("[::1]", "::1"),
        ("[0:0:0:0:0:0:0:1]", "::1"),
        ("Example.COM.", "example.com"),
        ("bücher.example", "xn--bcher-kva.example"),
        ("999.1.1.1", "999.1.1.1"),
    ],
)
def test_hosts_in_canonical_form(host: str, canonical: str) -> None:
    assert canonical_host(host) == canonical


@pytest.mark.parametrize(
    ("address", "refused"),
    [
        ("127.0.0.1", True),
        ("10.1.2.3", True),
        ("172.16.0.1", True),
        ("192.168.1.1", True),
        ("169.254.169.254", True),
        ("100.64.0.1", True),
        ("0.0.0.0", True),
        ("::1", True),
        ("fe80::1", True),
        ("fd00::1", True),
        ("::ffff:127.0.0.1", True),
        ("::ffff:8.8.8.8", False),
        ("8.8.8.8", False),
        ("2606:4700::1111", False),
    ],
)
def test_only_public_addresses_are_fetched(address: str, refused: bool) -> None:
    import ipaddress

    assert forbidden(ipaddress.ip_address(address)) == refused


def test_the_start_up_names_follow_what_is_imported() -> None:
    first = startup_modules()
    assert startup_modules() is first  # nothing new imported: the same set
    import xml.dom.minidom  # noqa: F401

    assert "xml" in startup_modules() and "minidom" not in startup_modules()
    assert not any(n in startup_modules() for n in sys.builtin_module_names if n not in ("xml",))


def test_every_root_is_searched(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    for root in (first, second):
        root.mkdir()
        (root / ".env").write_text("")
    assert guarded([first, second]).readonly == (first / ".env", second / ".env")


def test_the_walk_stops_descending_after_its_entry_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox_guard, "MAX_ENTRIES", 3)
    (tmp_path / "x1").write_text("")
    (tmp_path / "x2").write_text("")
    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "d" / ".env").write_text("")
    (tmp_path / "d" / "e" / ".env").write_text("")
    assert guarded([tmp_path]).readonly == (tmp_path / "d" / ".env",)


def test_a_linked_folder_is_not_walked_and_its_siblings_are(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere).mkdir()
    (elsewhere / ".env").write_text("")
    root = tmp_path / "root"
    root.mkdir()
    (root / "link").symlink_to(elsewhere, target_is_directory=True)
    for index in range(20):
        (root / f"d{index}").mkdir()
        (root / f"d{index}" / ".env").write_text("")
    assert set(guarded([root]).readonly) == {root / f"d{index}" / ".env" for index in range(20)}


def test_slirp4netns_is_looked_up_on_the_path() -> None:
    import shutil

    from jupyter_agent.permissions.bubblewrap import slirp4netns

    assert slirp4netns() == shutil.which("slirp4netns")


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_another_users_files_are_left_out(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("")
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / ".env").write_text("")
    os.chown(tmp_path / "theirs", 65534, 65534)
    (tmp_path / ".envrc").write_text("")
    os.chown(tmp_path / ".envrc", 65534, 65534)
    assert guarded([tmp_path]).readonly == (tmp_path / ".env",)
