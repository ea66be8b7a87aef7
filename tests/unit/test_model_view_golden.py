"""What the model reads, as golden files: every fixed text the package sends — the system prompt (the main agent's,
and each built-in sub-agent type's), the session context as told in each permission mode, and every tool's
definition as sent (name, description, input_schema) — is kept under tests/golden/model_view/, so a change to what
the model reads shows in review as a diff of those files.

The system prompt holds no mode (it is fixed for a conversation); what a mode changes is the context's line, so
the per-mode files are the context. To accept a change, regenerate and review the diff:

    JUPYTER_AGENT_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/unit/test_model_view_golden.py -p no:cacheprovider
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import pytest

from jupyter_agent.agent.boundary import valid_for_model
from jupyter_agent.agent.facts import SessionFacts, facts_text
from jupyter_agent.agent.prompt import PromptFacts, system_prompt
from jupyter_agent.builtin_tools.catalog import OPT_IN_TOOLS, builtin_tools
from jupyter_agent.permissions.modes import MODES
from jupyter_agent.tools.agent_types import BUILTIN_AGENT_TYPES

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "model_view"
REGENERATE = "JUPYTER_AGENT_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/unit/test_model_view_golden.py -p no:cacheprovider"
UPDATE = os.environ.get("JUPYTER_AGENT_UPDATE_GOLDEN") == "1"


def _tools() -> list[dict[str, object]]:
    made = [*builtin_tools(), *(tool for row in OPT_IN_TOOLS for tool in row.make())]
    return [valid_for_model(tool.to_param()) for tool in made]


def _texts() -> dict[str, str]:
    """Every golden file's path (under GOLDEN) and the text it must hold."""
    texts = {"system/main.txt": system_prompt(PromptFacts())}
    for kind in BUILTIN_AGENT_TYPES:
        facts = PromptFacts(subagent=True, read_only=kind.read_only, report=kind.report, role=kind.prompt)
        texts[f"system/subagent-{kind.name}.txt"] = system_prompt(facts)
    names = tuple(str(definition["name"]) for definition in _tools())
    for mode in MODES:
        facts = SessionFacts(
            cwd="/home/me/project",
            kernel="python3 (ipykernel)",
            mode=mode,
            date="2026-12-01",
            notebook="analysis.ipynb",
            notebook_note="open in JupyterLab with the jupyter-agent extension",
            tool_names=names,
        )
        told = facts_text({}, facts.lines())
        assert told is not None
        texts[f"context/{mode}.txt"] = told
    for definition in _tools():
        texts[f"tools/{definition['name']}.json"] = json.dumps(definition, indent=2, ensure_ascii=False)
    return {path: text + "\n" for path, text in texts.items()}


TEXTS = _texts()


@pytest.mark.parametrize("path", sorted(TEXTS))
def test_what_the_model_reads_matches_its_golden_file(path: str) -> None:
    golden = GOLDEN / path
    now = TEXTS[path]
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(now, encoding="utf-8")
        return
    kept = golden.read_text(encoding="utf-8") if golden.exists() else ""
    if kept != now:
        diff = "".join(
            difflib.unified_diff(
                kept.splitlines(keepends=True), now.splitlines(keepends=True), f"golden/{path}", "now"
            )
        )
        pytest.fail(
            f"what the model reads changed ({path}); review the diff, then regenerate with\n    {REGENERATE}\n\n{diff}",
            pytrace=False,
        )


def test_no_golden_file_is_left_for_a_text_that_is_gone() -> None:
    kept = {str(p.relative_to(GOLDEN)) for p in GOLDEN.rglob("*") if p.is_file() and p.name != "README.md"}
    if UPDATE:
        for stale in kept - set(TEXTS):
            (GOLDEN / stale).unlink()
        return
    assert kept == set(TEXTS), f"stale or missing golden files; regenerate with\n    {REGENERATE}"
