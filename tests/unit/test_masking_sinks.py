"""Secrets are masked where text leaves the kernel, with the secrets known then, not where each piece is made: a
value that becomes a secret after it was read is masked in everything sent, saved or shown after that. So `mask`
is called by the sinks alone — besides `masking.py`, which defines it and masks before its own cuts (`clip`,
`cap_text`):

- `agent/request_body.py`: the model's requests (docs/architecture.md; `test_request_sink_masking.py`);
- `sessions/log.py`: the session file, masked again whole when the secrets change;
- `ui/gate.py`: everything shown — displays, widgets, terminal lines, page messages, Markdown before it renders;
- `tools/command_hooks.py`: what a command hook (a subprocess) is handed and what it reports;
- `serve/listing.py`: the results `%agent serve` hands an outside agent;
- `tools/dispatch.py`, defence in depth: a tool's result and title are masked once more as the call returns, with
  the secrets known then, so the conversation and the run's events the session keeps in memory (and the Task
  report a sub-agent's result becomes) hold none of them even before a sink sees them
  (`test_what_the_dispatcher_reports.py::test_a_secret_in_a_tools_result_reaches_neither_the_model_nor_the_card`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import jupyter_agent

PACKAGE = Path(jupyter_agent.__file__).parent

SINKS = {
    "agent/request_body.py",
    "sessions/log.py",
    "ui/gate.py",
    "tools/command_hooks.py",
    "serve/listing.py",
    "tools/dispatch.py",
}
#: Where `mask` is defined: `masking.py` (the registry, `clip`, `cap_text`) and the scanner it is built on.
DEFINED = {"masking.py", "secret_scan.py"}


def _calls_mask(path: Path) -> bool:
    """A call of `mask(…)` or `<anything>.mask(…)` (a registry's, a scanner's)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Name) and func.id == "mask") or (
                isinstance(func, ast.Attribute) and func.attr == "mask"
            ):
                return True
    return False


def _maskers() -> set[str]:
    return {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if "labextension" not in path.relative_to(PACKAGE).parts and _calls_mask(path)
    } - DEFINED


def test_mask_is_called_by_the_sinks_alone() -> None:
    assert _maskers() <= SINKS, "mask where the text leaves (see the docstring), not where it is made"
    assert len(SINKS) <= 6


def test_each_sink_still_masks() -> None:
    """A sink that stopped masking would leave its output unmasked: the list names only modules that mask."""
    assert _maskers() == SINKS


def test_the_reader_finds_both_forms_of_the_call(tmp_path: Path) -> None:
    source = tmp_path / "example.py"
    source.write_text("from m import mask\nmask(a)\n")
    assert _calls_mask(source)
    source.write_text("scanner.mask(a)\n")
    assert _calls_mask(source)
    source.write_text("masked(a)\nmask_data(a)\n")
    assert not _calls_mask(source)
