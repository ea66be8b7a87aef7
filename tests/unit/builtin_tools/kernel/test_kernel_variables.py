"""ListVariables and Inspect on a real namespace with real pandas/numpy objects — and objects whose repr hangs."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from dispatch_harness import ToolHarness

from jupyter_agent.builtin_tools.kernel import Inspect, ListVariables, kernel_tools
from jupyter_agent.tools import (
    ToolResult,
)

#: Released at teardown so the threads parked in a hanging __repr__ can finish.
RELEASE = threading.Event()


@pytest.fixture(autouse=True)
def _release_hanging_reprs() -> Iterator[None]:
    RELEASE.clear()
    yield
    RELEASE.set()


class HangingRepr:
    def __repr__(self) -> str:
        RELEASE.wait()
        return "HangingRepr()"


class HangingFrame(pd.DataFrame):
    """A DataFrame subclass whose repr never finishes."""

    @property
    def _constructor(self) -> type[HangingFrame]:
        return HangingFrame

    def __repr__(self) -> str:
        RELEASE.wait()
        return "never"


def scale(values: list[float], factor: float = 2.0) -> list[float]:
    """Multiply every value by factor."""
    return [v * factor for v in values]


def run(
    name: str, args: dict[str, Any], namespace: dict[str, Any] | None, tmp_path: Path, **tools: Any
) -> ToolResult:
    chosen: list[Any] = [
        tools.get("listing", ListVariables()),
        tools.get("inspect", Inspect(repr_seconds=0.3)),
    ]
    return ToolHarness(tmp_path, chosen, mode="default", namespace=namespace).call(name, args)


def test_listing_shows_types_shapes_dtypes_sizes_and_short_values(tmp_path: Path) -> None:
    import os

    namespace: dict[str, Any] = {
        "df": pd.DataFrame({"a": [1, 2, 3], "b": [1.0, 2.0, 3.0]}),
        "arr": np.zeros((3, 4), dtype=np.float32),
        "n": 42,
        "name": "sales",
        "rows": [1, 2, 3],
        "_private": 1,
        "os": os,
        "scale": scale,
        "In": [],
        "get_ipython": lambda: None,
    }
    result = run("ListVariables", {}, namespace, tmp_path)
    assert not result.is_error
    assert result.content == (
        "5 variables in the kernel (1 functions/classes hidden; pass include_functions=true to list them):\n"
        "name  type       shape/len  dtype    size    value\n"
        "arr   ndarray    (3, 4)     float32  48 B\n"
        "df    DataFrame  (3, 2)     mixed    180 B\n"
        "n     int                            28 B    42\n"
        # A str's own size depends on the Python version: 54 B on 3.11, 46 B since 3.12's smaller str objects.
        f"name  str        5                   {sys.getsizeof('sales')} B    'sales'\n"
        "rows  list       3                   ~172 B"
    )


def test_functions_and_classes_are_listed_when_asked(tmp_path: Path) -> None:
    result = run(
        "ListVariables", {"include_functions": True}, {"scale": scale, "Frame": HangingFrame}, tmp_path
    )
    assert result.content == "2 variables in the kernel:\nname   type\nFrame  type\nscale  function"


def test_listing_never_waits_on_an_object_that_hangs(tmp_path: Path) -> None:
    class HangingShape:
        @property
        def shape(self) -> tuple[int, ...]:
            RELEASE.wait()
            return (1,)

    listing = ListVariables(per_value_seconds=0.2, total_seconds=1.0)
    result = run("ListVariables", {}, {"stuck": HangingShape(), "n": 1}, tmp_path, listing=listing)
    assert "stuck  HangingShape" in result.content
    assert "facts did not finish in 0.2 s" in result.content
    assert "n      int" in result.content


def test_without_a_kernel_namespace_the_tools_say_they_are_not_available(tmp_path: Path) -> None:
    result = run("ListVariables", {}, None, tmp_path)
    assert result.error_code == "NOT_AVAILABLE"
    assert "not running inside a kernel" in result.content


def test_inspect_dataframe_shows_shape_dtypes_and_head(tmp_path: Path) -> None:
    df = pd.DataFrame({"city": ["Oslo", "Lima"], "sales": [10, 20]})
    result = run("Inspect", {"name": "df"}, {"df": df}, tmp_path)
    assert not result.is_error
    text = result.content
    assert text.startswith("df: pandas.DataFrame\nshape: 2 rows × 2 columns\nmemory: ")
    assert "columns (dtype):\n  city: " in text
    assert "  sales: int64" in text
    assert "head(5):\n     city  sales\n  0  Oslo     10\n  1  Lima     20" in text


def test_inspect_array_gives_numeric_stats(tmp_path: Path) -> None:
    arr = np.array([[1.0, np.nan], [3.0, 5.0]])
    result = run("Inspect", {"name": "arr"}, {"arr": arr}, tmp_path)
    assert "shape: (2, 2)\ndtype: float64\nmemory: 32 B\nstats: min 1, max 5, mean 3, 1 NaN" in result.content


def test_inspect_function_gives_signature_and_docstring(tmp_path: Path) -> None:
    result = run("Inspect", {"name": "scale"}, {"scale": scale}, tmp_path)
    assert result.content.startswith(
        "scale: function\nsignature: scale(values: list[float], factor: float = 2.0) -> list[float]\n"
    )
    assert "docstring:\n  Multiply every value by factor." in result.content


def test_a_repr_that_hangs_is_abandoned_after_the_cap(tmp_path: Path) -> None:
    result = run("Inspect", {"name": "h"}, {"h": HangingRepr()}, tmp_path)
    assert not result.is_error
    assert result.content == (
        "h: test_kernel_variables.HangingRepr\n"
        "repr: (repr did not finish in 0.3 s; the object's own code (__repr__, a property) may hang or be very "
        "slow, so it was not waited for)"
    )


def test_a_dataframe_whose_cells_hang_still_shows_shape_and_dtypes(tmp_path: Path) -> None:
    df = pd.DataFrame({"obj": [HangingRepr(), 1], "x": [1, 2]})
    result = run("Inspect", {"name": "df"}, {"df": df}, tmp_path)
    assert "shape: 2 rows × 2 columns" in result.content
    assert "  obj: object\n  x: int64" in result.content
    assert "head(5): (head(5) did not finish in 0.3 s;" in result.content


def test_a_dataframe_subclass_whose_repr_hangs_is_described_without_it(tmp_path: Path) -> None:
    frame = HangingFrame({"a": [1, 2]})
    result = run("Inspect", {"name": "frame"}, {"frame": frame}, tmp_path)
    assert result.content.startswith("frame: test_kernel_variables.HangingFrame\nshape: 2 rows × 1 columns")


def test_attribute_and_constant_subscript_paths_are_followed(tmp_path: Path) -> None:
    namespace: dict[str, Any] = {"df": pd.DataFrame({"a": [1, 2]}), "config": {"paths": ["x", "y"]}}
    assert run("Inspect", {"name": "df['a']"}, namespace, tmp_path).content.startswith(
        "df['a']: pandas.Series\nlength: 2\ndtype: int64"
    )
    assert run("Inspect", {"name": "config['paths'][-1]"}, namespace, tmp_path).content.startswith(
        "config['paths'][-1]: str\nlength: 1\nrepr:\n  'y'"
    )
    assert run("Inspect", {"name": "df.columns"}, namespace, tmp_path).content.startswith(
        "df.columns: pandas."
    )


@pytest.mark.parametrize(
    ("path", "message"),
    [
        pytest.param(
            "dff",
            "INVALID_ARGS: there is no variable 'dff' in the kernel; similar names: df (ListVariables lists them)",
            id="an unknown name suggests close ones",
        ),
        pytest.param(
            "df.colums",
            "INVALID_ARGS: 'df' (DataFrame) has no attribute 'colums'; did you mean columns, cumsum?",
            id="a misspelt attribute suggests close ones",
        ),
        pytest.param(
            "df.head()",
            "INVALID_ARGS: Inspect cannot look up 'df.head()': use a variable name with attributes and constant "
            "subscripts, e.g. df, df.columns, data['key'], items[0]; calls and expressions are not evaluated "
            "(use RunCode for that)",
            id="a call is refused, never evaluated",
        ),
    ],
)
def test_bad_paths_name_the_fix(path: str, message: str, tmp_path: Path) -> None:
    result = run("Inspect", {"name": path}, {"df": pd.DataFrame({"a": [1]})}, tmp_path)
    assert result.content == message


def test_kernel_tools_are_the_four_in_kernel_tools() -> None:
    tools = {tool.name: tool for tool in kernel_tools()}
    assert sorted(tools) == ["Debug", "Inspect", "ListVariables", "RunCode"]
    assert tools["ListVariables"].read_only and tools["Inspect"].read_only and tools["Debug"].read_only
    assert tools["RunCode"].kind == "execute" and not tools["RunCode"].read_only


def _helper() -> None:
    """A user function: its __globals__ is the whole module, os and the environment included."""


@pytest.mark.parametrize(
    ("path", "hop"),
    [
        ("get_ipython.__func__.__globals__['os'].environ['ANTHROPIC_API_KEY']", "__func__"),
        ("helper.__globals__", "__globals__"),
        ("df.__dict__", "__dict__"),
        ("df.__class__.__mro__", "__class__"),
        ("__builtins__", "__builtins__"),
        ("helper.__code__.co_consts", "__code__"),
        ("helper.__closure__", "__closure__"),
        ("rows.__class__.__base__.__subclasses__", "__class__"),
        ("df.__private", "__private"),
    ],
)
def test_inspect_never_follows_dunder_attributes(path: str, hop: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    import os

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-never-shown-0123456789")
    namespace: dict[str, Any] = {
        "get_ipython": os.getcwd,  # any builtin-bound callable would do; a bound method has __func__
        "helper": _helper,
        "df": pd.DataFrame({"a": [1]}),
        "rows": [1, 2],
        "__builtins__": __builtins__,
    }
    result = run("Inspect", {"name": path}, namespace, tmp_path)
    assert result.error_code == "INVALID_ARGS"
    assert "sk-ant-never-shown" not in result.content
    if hop is not None:
        assert f"Inspect does not follow '{hop}'" in result.content
        assert "use RunCode, which asks the user first" in result.content


def test_a_secret_held_in_a_variable_is_masked_in_listing_and_inspect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    key = "sk-ant-api03-" + "x7" * 40
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    # `held`, not `api_key`: a name that says credential hides the value outright (test_credential_values_stay_unshown)
    namespace: dict[str, Any] = {"held": key, "config": {"key": key, "region": "eu"}}
    listing = run("ListVariables", {}, namespace, tmp_path)
    inspected = run("Inspect", {"name": "config"}, namespace, tmp_path)
    for text in (listing.content, inspected.content):
        assert key[:20] not in text, text  # not even the part before a cut
    assert (
        "[redacted: ANTHROPIC_API_KEY]" in listing.content
        and "[redacted: ANTHROPIC_API_KEY]" in inspected.content
    )


class _Holder:
    """A user object that keeps a reference to the agent's machinery (as `exit._ip…` does in a kernel)."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.notes = "plain data"


def test_inspect_refuses_the_agents_and_the_kernels_own_objects_wherever_the_walk_meets_them(
    tmp_path: Path,
) -> None:
    from jupyter_agent.permissions.policy import PermissionPolicy as Policy

    machinery = Policy()  # any object of this package stands for the agent's client, settings, session
    namespace = {"holder": _Holder(machinery), "policy": machinery, "method": machinery.decide}
    assert "plain data" in run("Inspect", {"name": "holder.notes"}, namespace, tmp_path).content
    for path in ("policy", "holder.inner", "holder.inner.mode", "method"):
        refused = run("Inspect", {"name": path}, namespace, tmp_path)
        assert refused.error_code == "INVALID_ARGS", (path, refused.content)
        assert "the kernel's or the agent's own object" in refused.content


@pytest.mark.parametrize(
    "path",
    [
        "os.environ['ANTHROPIC_API_KEY']",
        "os.environ",
        "config['api_key']",
        "config['token'][0:10]",
        "client.inner",
        "client.api_key_env",
        "token[::-1]",
    ],
)
def test_inspect_asks_before_reading_a_credential_and_only_bypass_skips_the_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    import os

    key = "sk-ant-api03-Lq2Vm7Xc4Rn9Tb1Wz6Kd"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    client = _Holder(key)
    client.api_key_env = key  # pyright: ignore[reportAttributeAccessIssue]
    namespace = {"os": os, "config": {"api_key": key, "token": key}, "client": client, "token": key}
    asked = run("Inspect", {"name": path}, namespace, tmp_path)
    assert asked.error_code == "DENIED" and "bypassPermissions" in asked.content, asked.content
    tools = ToolHarness(tmp_path, [Inspect(repr_seconds=0.3)], mode="bypassPermissions", namespace=namespace)
    shown = tools.call("Inspect", name=path)
    assert not shown.is_error and key[13:21] not in shown.content  # shown, and still masked


def test_inspect_of_ordinary_data_does_not_ask(tmp_path: Path) -> None:
    namespace = {"config": {"paths": ["a", "b"]}, "notes": "keyboard layout"}
    assert not run("Inspect", {"name": "config['paths']"}, namespace, tmp_path).is_error
    assert not run("Inspect", {"name": "notes"}, namespace, tmp_path).is_error


class _Lookups:
    """Attribute and item lookups that hang, raise, or fail as a user's object might."""

    colour = "red"

    @property
    def slow(self) -> int:
        RELEASE.wait()
        return 1

    @property
    def broken(self) -> int:
        raise RuntimeError("no value today")

    def __getitem__(self, key: object) -> str:
        if key == ("a", 1):
            return "tuple key"
        if key == slice(1, None, 2):
            return "sliced"
        raise KeyError(key)


def test_inspect_says_exactly_what_went_wrong_on_the_way(tmp_path: Path) -> None:
    namespace = {"obj": _Lookups(), "colours": ["red"], "__secret": 1}
    said = {
        path: run("Inspect", {"name": path}, namespace, tmp_path).content
        for path in (
            "obj.slow",
            "obj.broken",
            "obj.colr",
            "obj['nope']",
            "colours[5]",
            "obje",
            "obj.__dict__",
            "__secret.x",
            "obj(1)",
        )
    }
    assert said["obj.slow"] == "TIMEOUT: looking up 'obj.slow' did not finish in 0.3 s"
    assert (
        said["obj.broken"] == "EXECUTION_ERROR: looking up 'obj.broken' raised RuntimeError: no value today"
    )
    assert said["obj.colr"] == "INVALID_ARGS: 'obj' (_Lookups) has no attribute 'colr'; did you mean colour?"
    assert said["obj['nope']"] == "INVALID_ARGS: 'obj'['nope'] failed: KeyError: 'nope'"
    assert said["colours[5]"] == "INVALID_ARGS: 'colours'[5] failed: IndexError: list index out of range"
    assert said["obje"] == (
        "INVALID_ARGS: there is no variable 'obje' in the kernel; similar names: obj (ListVariables lists them)"
    )
    assert said["obj.__dict__"] == (
        "INVALID_ARGS: Inspect does not follow '__dict__' in 'obj.__dict__': special (dunder) attributes reach module "
        "globals and interpreter internals, which Inspect does not open without asking. Inspect the object itself "
        "(e.g. obj), or use RunCode, which asks the user first"
    )
    assert "(e.g. a variable)" in said["__secret.x"]
    assert said["obj(1)"].startswith("INVALID_ARGS: Inspect cannot look up 'obj(1)'")
    assert run("Inspect", {"name": "nothing"}, {}, tmp_path).content == (
        "INVALID_ARGS: there is no variable 'nothing' in the kernel (ListVariables lists them)"
    )
    assert run("Inspect", {"name": "obj.zzzzzz"}, namespace, tmp_path).content.endswith("attribute 'zzzzzz'")


def test_inspect_reads_tuple_and_slice_subscripts_and_names_the_type(tmp_path: Path) -> None:
    namespace = {"obj": _Lookups()}
    tupled = run("Inspect", {"name": "obj['a', 1]"}, namespace, tmp_path)
    assert tupled.content.startswith("obj[('a', 1)]: str\n") and "tuple key" in tupled.content
    assert tupled.summary == "obj[('a', 1)]: str"
    assert "sliced" in run("Inspect", {"name": "obj[1::2]"}, namespace, tmp_path).content


def test_a_refusal_names_the_object_and_says_what_to_do(tmp_path: Path) -> None:
    from jupyter_agent.permissions.policy import PermissionPolicy as Policy

    refused = run("Inspect", {"name": "policy"}, {"policy": Policy()}, tmp_path)
    assert refused.content == (
        "INVALID_ARGS: 'policy' is the kernel's or the agent's own object "
        "(jupyter_agent.permissions.policy.PermissionPolicy); Inspect does not open IPython's shell, the kernel, its "
        "session or connection, or the agent's client and settings. Inspect the user's own variables, or use "
        "RunCode, which asks the user first"
    )


def test_a_credential_in_bytes_or_behind_an_innocent_name_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-ant-api03-Lq2Vm7Xc4Rn9Tb1Wz6Kd"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    from jupyter_agent.builtin_tools.kernel.guards import credential_reason

    assert credential_reason("blob", [], key.encode()) == "what 'blob…' leads to holds a secret"
    assert credential_reason("blob", [], b"\xff" + key.encode()) is not None
    assert (
        credential_reason("cfg", [("item", 0), ("attr", "token")], None)
        == "it reads 'token', which may hold credentials"
    )
    assert credential_reason("cfg", [("item", "ANTHROPIC_API_KEY")], None) == (
        "it reads 'ANTHROPIC_API_KEY', which holds a credential"
    )
    assert credential_reason("environ", [], None) == "it reads 'environ', which may hold credentials"
    assert credential_reason("cfg", [("item", "paths")], "plain") is None
