"""Configuration, pricing, the system prompt (pinned), the model client, the worker and the import cost."""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict, Unpack

import pytest

from jupyter_agent.agent import AgentConfig, AgentWorker, Usage
from jupyter_agent.agent.client import ModelClient
from jupyter_agent.agent.config import DEFAULT_MODEL
from jupyter_agent.agent.facts import SessionFacts, facts_text
from jupyter_agent.agent.models import canonical_model, context_window_for
from jupyter_agent.agent.pricing import turn_cost, unknown_price_note
from jupyter_agent.agent.prompt import PromptFacts, system_prompt
from jupyter_agent.permissions.modes import Mode
from jupyter_agent.testing import TEST_API_KEY, ScriptedServer

REPO = Path(__file__).resolve().parents[3]

PINNED_CONTEXT = """\
[Session context: where you are working. Later messages may update it; the latest wins.]
- Notebook: analysis/sales.ipynb
- Working directory: /home/me/project (relative paths start here)
- Kernel: python3 (ipykernel); its variables are live, so inspect them rather than guess
- Permission mode: default: read-only tools run at once; any other call (an edit, RunCode, RunCell, Bash) asks the user first.
- Date: 2026-11-28"""


_BASE_FACTS = SessionFacts(
    cwd="/home/me/project",
    kernel="python3 (ipykernel)",
    mode="default",
    date="2026-11-28",
    tool_names=("Read", "Edit", "NotebookEdit"),
    notebook="analysis/sales.ipynb",
)


class _FactChanges(TypedDict, total=False):
    """What a test varies in the pinned facts, typed as `SessionFacts` types it."""

    mode: Mode
    tool_names: Sequence[str]
    notebook: str | None


def _context(**changes: Unpack[_FactChanges]) -> str:
    text = facts_text({}, dataclasses.replace(_BASE_FACTS, **changes).lines())
    assert text is not None
    return text


def test_the_system_prompt_holds_nothing_that_changes_in_a_session() -> None:
    """Its whole text is pinned by its golden file (tests/unit/test_model_view_golden.py)."""
    prompt = system_prompt(PromptFacts())
    for fact in ("Working directory:", "Date:", "- Notebook:", "- Kernel:", "Permission mode:"):
        assert fact not in prompt


def test_the_session_context_is_pinned() -> None:
    assert _context() == PINNED_CONTEXT


def test_an_update_says_only_what_changed() -> None:
    told = _BASE_FACTS.lines()
    now = dataclasses.replace(_BASE_FACTS, mode="acceptEdits", date="2026-11-29").lines()
    assert facts_text(told, now) == (
        "[Update to the session context since earlier in this conversation:]\n"
        "- Permission mode: acceptEdits: edits of files and cells run without asking; running code (RunCode, "
        "RunCell, Bash) asks the user first.\n"
        "- Date: 2026-11-29"
    )
    assert facts_text(told, told) is None


def test_plan_mode_tells_the_model_to_present_a_plan() -> None:
    line = next(x for x in _context(mode="plan").splitlines() if "Permission mode" in x)
    assert line == (
        "- Permission mode: plan: only read-only tools run; RunCode, RunCell, Bash and every edit of a file or cell "
        "are refused. Investigate, then give the plan as your answer: the user switches the mode to carry it out."
    )


def test_plan_mode_with_exit_plan_mode_tells_the_model_to_present_the_plan_with_it() -> None:
    line = next(
        x
        for x in _context(mode="plan", tool_names=("Read", "ExitPlanMode")).splitlines()
        if "Permission mode" in x
    )
    assert line == (
        "- Permission mode: plan: only read-only tools run; RunCode, RunCell, Bash and every edit of a file or cell "
        "are refused. Investigate, then present the plan with ExitPlanMode: the user approves it (the mode "
        "switches and you carry the plan out at once) or asks you to keep planning."
    )


def test_a_subagent_is_told_its_final_message_is_its_report_to_the_main_agent() -> None:
    prompt = system_prompt(PromptFacts(subagent=True))
    assert prompt.startswith("You are a sub-agent.")
    assert "your final message is all it receives of your work" in prompt
    assert system_prompt(PromptFacts()).startswith(
        "You are an agent working inside the user's Jupyter kernel"
    )


def test_the_users_instructions_end_the_prompt() -> None:
    assert "- Notebook: none attached (work with files)" in _context(notebook=None)
    prompt = system_prompt(PromptFacts(extra_instructions="Use polars."))
    assert prompt.endswith("\n\nThe user's instructions:\nUse polars.")


def test_the_default_model_is_a_sonnet_the_sdk_knows() -> None:
    from typing import get_args

    from anthropic.types import Model

    known = get_args(get_args(Model)[0])
    assert DEFAULT_MODEL in known and "sonnet" in DEFAULT_MODEL
    assert context_window_for(DEFAULT_MODEL) == 1_000_000


@pytest.mark.parametrize(
    ("model", "canonical"),
    [
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5"),
        ("us.anthropic.claude-opus-4-6-v1:0", "claude-opus-4-6"),
        ("global.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
        ("claude-opus-4-6@20260115", "claude-opus-4-6"),
        ("claude-sonnet-5-5[1m]", "claude-sonnet-5-5"),
        ("gpt-4o", ""),
    ],
)
def test_provider_model_ids_map_to_one_price_name(model: str, canonical: str) -> None:
    assert canonical_model(model) == canonical


def test_a_turn_is_priced_per_million_tokens() -> None:
    turn = Usage(input=1_000_000, output=1_000_000, cache_read=1_000_000, cache_write=1_000_000)
    assert turn_cost("claude-sonnet-4-6", turn) == 3 + 15 + 0.30 + 3.75
    assert turn_cost("claude-opus-4-6", turn) == 5 + 25 + 0.50 + 6.25


def test_haiku_5_5_prompts_over_100k_tokens_cost_the_long_prompt_rate() -> None:
    short = Usage(input=100_000, output=1_000_000)
    long = Usage(input=100_001, output=1_000_000)
    assert turn_cost("claude-haiku-5-5", short) == pytest.approx(0.01 + 0.50)
    assert turn_cost("claude-haiku-5-5", long) == pytest.approx(100_001 * 0.50 / 1e6 + 2.50)


def test_an_unknown_model_costs_nothing_countable_and_says_cost_n_a() -> None:
    assert turn_cost("my-proxy-model", Usage(input=10**6)) == 0
    assert (
        unknown_price_note("my-proxy-model")
        == "no price is known for the model 'my-proxy-model'; cost n/a (tokens are still counted)"
    )
    assert unknown_price_note(DEFAULT_MODEL) is None


def test_usage_adds_up_field_by_field() -> None:
    total = Usage(input=1, output=2, cache_read=3, cache_write=4) + Usage(input=10, output=20, cache_read=30)
    assert total == Usage(input=11, output=22, cache_read=33, cache_write=4)
    assert total.prompt_tokens == 48


def test_config_rejects_nonsense_limits() -> None:
    with pytest.raises(ValueError, match="max_turns must be at least 1"):
        AgentConfig(max_turns=0)
    with pytest.raises(ValueError, match="budget_usd must be positive"):
        AgentConfig(budget_usd=0)


@pytest.mark.parametrize(
    ("config", "client_class"),
    [
        (AgentConfig(base_url="http://127.0.0.1:9", api_key="k"), "AsyncAnthropic"),
        (AgentConfig(provider="bedrock", aws_region="us-east-1"), "AsyncAnthropicBedrock"),
        (
            AgentConfig(provider="vertex", vertex_region="us-east5", vertex_project_id="p"),
            "AsyncAnthropicVertex",
        ),
    ],
)
def test_each_provider_uses_the_sdks_own_client(config: AgentConfig, client_class: str) -> None:
    # Only construction: calling Bedrock or Vertex needs cloud credentials this test cannot have.
    client = ModelClient()
    sdk = client.sdk(config)
    assert type(sdk).__name__ == client_class
    assert sdk.max_retries == 0  # retries are agent/retry.py's, which shows each wait
    assert sdk.timeout.read == config.stall_timeout
    assert client.sdk(config) is sdk  # reused while the configuration is the same


def test_count_tokens_asks_the_api() -> None:
    with ScriptedServer([]) as server:
        config = AgentConfig(base_url=server.url, api_key=TEST_API_KEY)
        client = ModelClient()

        async def count() -> int:
            try:
                return await client.count_tokens(
                    config,
                    {"model": config.model, "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]},
                )
            finally:
                await client.close()

        assert asyncio.run(count()) > 0
        [recorded] = server.recorded
        assert recorded.path == "/v1/messages/count_tokens"
        assert "max_tokens" not in recorded.body


def test_importing_the_package_does_not_import_the_sdk() -> None:
    code = "import sys, jupyter_agent, jupyter_agent.agent; print('anthropic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_worker_runs_coroutines_on_one_reused_thread() -> None:
    worker = AgentWorker()
    try:

        async def where() -> str:
            return threading.current_thread().name

        first = worker.submit(where()).result(5)
        second = worker.submit(where()).result(5)
        assert first == second == "jupyter-agent"
        assert first != threading.current_thread().name
    finally:
        worker.shutdown()


def test_stop_current_cancels_the_running_coroutine() -> None:
    worker = AgentWorker()
    try:

        async def stubborn() -> str:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                return "stopped cleanly"
            return "never"

        future = worker.submit(stubborn())
        worker.stop_current()  # queued after the start: reaches the run even if it has not begun
        assert future.result(5) == "stopped cleanly"

        async def lets_it_through() -> None:
            await asyncio.Event().wait()

        future = worker.submit(lets_it_through())
        worker.stop_current()
        with pytest.raises(concurrent.futures.CancelledError):
            future.result(5)
        assert not worker.busy
    finally:
        worker.shutdown()
