"""Property tests: `confine` never admits a path outside the roots (over 10,000+ generated paths).

The generated paths mix `..`, absolute paths, `~` and `~user`, a leading `@`, symlinks that point out
(to a directory, a file, a missing file, through `..`, absolutely), a symlink loop, a sibling directory
whose name extends the root's (`root-evil`), unicode and very long names. Every admitted path is checked
by an oracle written independently of the sandbox: our own component-by-component symlink resolution
and `os.path.commonpath`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from dispatch_harness import file_harness
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agent.tools import (
    Sandbox,
    ToolError,
)


@dataclass(frozen=True)
class World:
    base: Path
    root: Path
    outside: Path
    sandbox: Sandbox


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("confine")))
    root, outside, evil = base / "root", base / "outside", base / "root-evil"
    for directory in (root / "a" / "b", outside / "dir", evil):
        directory.mkdir(parents=True)
    (root / "a" / "file.txt").write_text("inside\n")
    (outside / "secret.txt").write_text("secret\n")
    (evil / "loot.txt").write_text("loot\n")
    links = {
        "link_out": "../outside",
        "link_file_out": "../outside/secret.txt",
        "link_abs_out": str(outside),
        "link_evil": "../root-evil",
        "dangling_out": "../outside/missing.txt",
        "link_in": "a",
        "dotdot_link": "a/../..",
        "loop": "loop",
        "a/b/up2": "../../..",
        "a/inner_ok": "b",
    }
    for name, target in links.items():
        os.symlink(target, root / name)
    old_home = os.environ.get("HOME")
    os.environ["HOME"] = str(outside)
    try:
        yield World(base=base, root=root, outside=outside, sandbox=Sandbox.at(root))
    finally:
        if old_home is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = old_home


def oracle_resolve(path: str) -> str:
    """Symlinks resolved one component at a time (our own walk, not os.path.realpath); loops stop resolving."""
    parts = [p for p in path.split("/") if p]
    resolved: list[str] = []
    hops = 0
    while parts:
        part = parts.pop(0)
        if part == ".":
            continue
        if part == "..":
            if resolved:
                resolved.pop()
            continue
        candidate = "/" + "/".join([*resolved, part])
        try:
            target = os.readlink(candidate)
        except OSError:  # not a link, missing, or a name too long: a plain component
            resolved.append(part)
            continue
        hops += 1
        if hops > 40:  # a loop: the OS refuses to open it, so it leads nowhere
            resolved.append(part)
            continue
        if target.startswith("/"):
            resolved = []
        parts = [p for p in target.split("/") if p] + parts
    return "/" + "/".join(resolved)


def assert_confined(world: World, text: str) -> None:
    try:
        admitted = world.sandbox.confine(text)
    except ToolError as exc:
        if exc.code == "INVALID_ARGS":
            assert "\0" in text  # NUL can't be in a path: refused before anything is opened
        else:
            assert exc.code == "OUTSIDE_ROOTS"
        return
    real = str(admitted)
    root = str(world.root)
    assert os.path.commonpath([real, root]) == root, (text, real)
    assert os.path.commonpath([oracle_resolve(str(world.sandbox.resolve_path(text))), root]) == root, text
    assert os.path.realpath(real) == real  # nothing left to follow: what was checked is what gets opened


NAMES = [
    "..",
    ".",
    "",
    "a",
    "b",
    "file.txt",
    "link_out",
    "link_file_out",
    "link_abs_out",
    "link_evil",
    "dangling_out",
    "link_in",
    "dotdot_link",
    "loop",
    "up2",
    "inner_ok",
    "root",
    "root-evil",
    "outside",
    "secret.txt",
    "~",
    "@",
]
PREFIXES = [
    "",
    "/",
    "@",
    "~",
    "~/",
    "~root/",
    "@~/",
    "./",
    "../",
    "@../",
    "//",
    "<root>/",
    "<base>/",
    "<outside>/",
]

segments = st.lists(st.sampled_from(NAMES), max_size=12)
prefixes = st.sampled_from(PREFIXES)
unicode_names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)


def expand(world: World, prefix: str) -> str:
    return (
        prefix.replace("<root>", str(world.root))
        .replace("<base>", str(world.base))
        .replace("<outside>", str(world.outside))
    )


#: Generated paths are cheap but many; hypothesis's speed and data-size health checks don't apply here.
SLOW_OK = (HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much)


def examples(count: int) -> settings:
    return settings(max_examples=count, deadline=None, database=None, suppress_health_check=SLOW_OK)


# 3,500 + 3,000 + 2,500 + 1,100 = 10,100 generated paths.


@examples(3500)
@given(prefix=prefixes, parts=segments)
def test_structured_paths_never_escape(world: World, prefix: str, parts: list[str]) -> None:
    assert_confined(world, expand(world, prefix) + "/".join(parts))


@examples(3000)
@given(prefix=prefixes, parts=st.lists(st.one_of(st.sampled_from(NAMES), unicode_names), max_size=8))
def test_unicode_mixed_paths_never_escape(world: World, prefix: str, parts: list[str]) -> None:
    assert_confined(world, expand(world, prefix) + "/".join(parts))


@examples(2500)
@given(raw=st.text(st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_arbitrary_strings_never_escape(world: World, raw: str) -> None:
    assert_confined(world, raw)


@examples(1100)
@given(
    prefix=prefixes,
    long_name=st.integers(min_value=200, max_value=300).map(lambda n: "x" * n),
    repeat=st.integers(min_value=1, max_value=20),
    tail=segments,
)
def test_very_long_paths_never_escape(
    world: World, prefix: str, long_name: str, repeat: int, tail: list[str]
) -> None:
    assert_confined(world, expand(world, prefix) + "/".join([long_name] * repeat + tail))


@examples(100)
@given(prefix=prefixes, parts=st.lists(st.sampled_from(NAMES), min_size=1, max_size=6))
def test_write_through_the_dispatcher_never_touches_anything_outside(
    world: World, prefix: str, parts: list[str]
) -> None:
    before = {p: p.read_bytes() for p in world.base.rglob("*") if p.is_file() and world.root not in p.parents}
    path = expand(world, prefix) + "/".join(parts)
    file_harness(world.sandbox).call("Write", file_path=path, content="pwned\n")
    after = {p: p.read_bytes() for p in world.base.rglob("*") if p.is_file() and world.root not in p.parents}
    assert after == before, path


def test_plain_names_inside_the_root_are_admitted(world: World) -> None:
    for text in (
        "a/file.txt",
        "@a/file.txt",
        "./a/b/../file.txt",
        "link_in/file.txt",
        "a/inner_ok",
        str(world.root),
    ):
        assert_confined(world, text)
        world.sandbox.confine(text)


# Admission: a sandbox that refused everything would pass every "never escapes" test above. These prove that
# what resolves inside the roots IS admitted, at the very path the oracle computes.

#: Names whose resolution the oracle and the OS agree on (no loop: how far a loop is followed is the OS's call).
RESOLVABLE = [n for n in NAMES if n != "loop"]
INSIDE_NAMES = ["a", "b", "file.txt", "link_in", "inner_ok", "new", "ü.txt", "x y", "."]


def assert_admitted_iff_inside(world: World, text: str) -> None:
    expected = oracle_resolve(str(world.sandbox.resolve_path(text)))
    root = str(world.root)
    inside = os.path.commonpath([expected, root]) == root
    try:
        admitted = world.sandbox.confine(text)
    except ToolError as exc:
        assert exc.code == "OUTSIDE_ROOTS"
        assert not inside, f"{text!r} resolves inside the root ({expected}) but was refused"
        return
    assert inside, (text, str(admitted))
    assert str(admitted) == expected, text


@examples(2000)
@given(prefix=prefixes, parts=st.lists(st.sampled_from(RESOLVABLE), max_size=10))
def test_a_path_is_admitted_exactly_when_it_resolves_inside_the_roots(
    world: World, prefix: str, parts: list[str]
) -> None:
    assert_admitted_iff_inside(world, expand(world, prefix) + "/".join(parts))


@examples(1000)
@given(
    prefix=st.sampled_from(["", "./", "@", "<root>/", "@<root>/", "a/../"]),
    parts=st.lists(
        st.one_of(
            st.sampled_from(INSIDE_NAMES), unicode_names.filter(lambda s: "/" not in s and s == s.strip())
        ),
        min_size=1,
        max_size=8,
    ),
)
def test_generated_paths_inside_the_root_are_admitted(world: World, prefix: str, parts: list[str]) -> None:
    text = expand(world, prefix) + "/".join(parts)
    if "\0" in text or any(p in ("..", "~", "@") or p.startswith(("~", "@")) for p in parts):
        return
    admitted = world.sandbox.confine(text)  # raises, failing the test, if refused
    assert os.path.commonpath([str(admitted), str(world.root)]) == str(world.root)
    assert str(admitted) == oracle_resolve(str(world.sandbox.resolve_path(text)))
