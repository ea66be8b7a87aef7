"""The one rule, decided in one place (`notebook.access.decide_write`) for every tool that writes a notebook:
the kernel's own notebook is never written on disk while a frontend may hold it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from dispatch_harness import ToolHarness
from notebook_testkit import World, write_notebook

from jupyter_agent.base.errors import ToolError
from jupyter_agent.base.journal import CellChange, RunJournal
from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.builtin_tools.notebook import notebook_tools
from jupyter_agent.notebook.access import WriteKind, decide_write
from jupyter_agent.notebook.frontend import Frontend, FrontendKind, KernelSignals
from jupyter_agent.notebook.provider import NotebookProvider
from jupyter_agent.tools import Sandbox, ToolContext
from jupyter_agent.tools.context import ToolServices
from jupyter_agent.undo.run import undo_run

OWN = Path("/home/me/work/analysis.ipynb")
OTHER = Path("/home/me/work/other.ipynb")


def frontend(kind: FrontendKind, *, on_disk: bool = True, blocked: str | None = None) -> Frontend:
    return Frontend(kind=kind, notebook=OWN, on_disk=on_disk, aliases=frozenset({OWN}), live_blocked=blocked)


@pytest.mark.parametrize(
    ("held_by", "kind"),
    [
        (frontend("jupyterlab"), "live"),
        (frontend("gateway", on_disk=False), "live"),
        (frontend("jupyterlab", blocked="ipykernel internals missing"), "proposal"),
        (frontend("vscode"), "proposal"),
        (frontend("headless"), "proposal"),
        (frontend("unknown"), "proposal"),
        (frontend("none"), "file"),
        (frontend("vscode", on_disk=False), "refuse"),
        (frontend("gateway", on_disk=False, blocked="ipykernel internals missing"), "refuse"),
        (Frontend(kind="headless"), "refuse"),  # it does not know which notebook it runs
    ],
    ids=[
        "jupyterlab",
        "gateway",
        "page-unreachable",
        "vscode",
        "headless",
        "unknown",
        "no-kernel",
        "vscode-remote",
        "gateway-unreachable",
        "notebook-unknown",
    ],
)
def test_the_kernels_own_notebook_is_written_only_through_a_live_page_or_with_no_frontend_at_all(
    held_by: Frontend, kind: WriteKind
) -> None:
    for target in (None, OWN) if held_by.notebook is not None else (None,):
        decision = decide_write(held_by, target)
        assert decision.kind == kind and decision.own
        if kind == "proposal":
            assert decision.reason  # said to the model and to the user
        if kind == "refuse":
            assert decision.refused().code == "NOTEBOOK_NOT_FOUND"


@pytest.mark.parametrize("kind", ["jupyterlab", "gateway", "vscode", "headless", "unknown", "none"])
def test_another_notebook_is_a_file_unless_the_page_shows_it(kind: FrontendKind) -> None:
    held_by = frontend(kind)
    assert decide_write(held_by, OTHER).kind == "file"
    refused = decide_write(held_by, OTHER, open_elsewhere=True)
    assert (
        refused.kind == "refuse" and "is open in JupyterLab with another kernel" in refused.refused().message
    )


def vscode_world(tmp_path: Path) -> tuple[ToolContext, Path, bytes]:
    """A session whose notebook VS Code holds (its traces in the signals)."""
    path = write_notebook(tmp_path / "analysis.ipynb")
    signals = KernelSignals(in_kernel=True, cwd=tmp_path, vscode_file=str(path))
    provider = NotebookProvider(default_path=path, signals=signals)
    ctx = ToolContext(sandbox=Sandbox.at(tmp_path), services=ToolServices(notebooks=provider))
    return ctx, path, path.read_bytes()


def dispatch(ctx: ToolContext, name: str, params: dict[str, object]) -> tuple[bool, str]:
    result = ToolHarness(ctx, [*file_tools(), *notebook_tools()], mode="bypassPermissions").call(name, params)
    return result.is_error, result.content


@pytest.mark.parametrize(
    ("tool", "params"),
    [
        ("Write", {"file_path": "analysis.ipynb", "content": "{}"}),
        ("Edit", {"file_path": "analysis.ipynb", "old_string": "x = 0", "new_string": "x = 9"}),
        (
            "MultiEdit",
            {"file_path": "analysis.ipynb", "edits": [{"old_string": "x = 0", "new_string": "x = 9"}]},
        ),
    ],
)
def test_the_file_tools_go_through_the_same_rule_for_the_kernels_notebook(
    tmp_path: Path, tool: str, params: dict[str, object]
) -> None:
    ctx, path, before = vscode_world(tmp_path)
    is_error, content = dispatch(ctx, tool, params)
    assert is_error and content.startswith("INVALID_ARGS: 'analysis.ipynb' is this kernel's own notebook")
    assert "VS Code holds 'analysis.ipynb' in its editor" in content and "NotebookEdit" in content
    assert path.read_bytes() == before


def test_the_live_notebooks_file_is_refused_to_the_file_tools_too(tmp_path: Path) -> None:
    world = World(tmp_path, "live")
    try:
        before = world.path.read_bytes()
        is_error, content = dispatch(world.ctx, "Write", {"file_path": "analysis.ipynb", "content": "{}"})
    finally:
        world.close()
    assert is_error and "it is open live in JupyterLab, so its cells change through the page" in content
    assert world.path.read_bytes() == before


def test_a_new_notebook_file_elsewhere_may_still_be_written(tmp_path: Path) -> None:
    ctx, _path, _before = vscode_world(tmp_path)
    is_error, content = dispatch(ctx, "Write", {"file_path": "scratch.ipynb", "content": "{}"})
    assert not is_error, content
    assert (tmp_path / "scratch.ipynb").read_text() == "{}"


def test_the_write_itself_refuses_the_kernels_notebook_even_if_a_tool_skipped_the_check(
    tmp_path: Path,
) -> None:
    from jupyter_agent.builtin_tools.files.access import target
    from jupyter_agent.builtin_tools.files.change import commit, plan
    from jupyter_agent.builtin_tools.files.text import decode

    ctx, path, before = vscode_world(tmp_path)
    asyncio.run(ctx.services.notebooks.current())
    where = target(ctx, "analysis.ipynb")
    with pytest.raises(ToolError) as refused:
        commit(ctx, plan(where, before, decode(before), "{}"), tool="Custom")
    assert refused.value.code == "INVALID_ARGS" and path.read_bytes() == before


def test_undo_of_a_cell_change_is_kept_where_the_notebook_is_now_held(tmp_path: Path) -> None:
    ctx, path, before = vscode_world(tmp_path)
    journal = RunJournal(run_id=1)
    inverse = {
        "ops": [{"op": "replace", "id": "c0", "source": "x = 0\nprint(x)", "expect": "x = 9"}],
        "live": True,
    }
    journal.record(
        CellChange(
            notebook=str(path),
            op="replace",
            cell_id="c0",
            inverse=inverse,
            after_source="x = 9",
            tool="NotebookEdit",
        )
    )
    text = asyncio.run(undo_run(journal, ctx))
    assert "skipped cell c0 in analysis.ipynb:" in text
    assert "VS Code holds 'analysis.ipynb'" in text and "undo it there" in text
    assert path.read_bytes() == before and not journal.undone
