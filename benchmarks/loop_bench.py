"""Loop overhead: 200 tool round trips through our loop ÷ the same calls through a minimal raw-SDK loop.

Both talk to the scripted server (no delay) over real HTTP with the real `anthropic` SDK, send the same
system prompt, tool definition and growing conversation, and run the same trivial read-only tool. The
rounds alternate and the best of each is kept. Target: ratio ≤ 1.2. Prints figures; asserts nothing.

The scripted server sets TCP_NODELAY (without it every small SSE write waited ~40 ms for a delayed ACK,
the same for both loops, which hid the loops' own cost).

    .venv/bin/python benchmarks/loop_bench.py [--round-trips 200] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anthropic

from jupyter_agent.agent import AgentConfig, AgentSession, AgentWorker
from jupyter_agent.agent.events import AgentEvent
from jupyter_agent.testing import TEST_API_KEY, ScriptedServer, Text, ToolUse, Turn
from jupyter_agent.tools import Sandbox, ToolContext, ToolPool, tool
from jupyter_agent.tools.dispatch import refuse_all


@tool(read_only=True)
def noop(i: int) -> str:
    """Return the number."""
    return str(i)


def script(round_trips: int) -> Any:
    def turn(_body: dict[str, Any], index: int) -> Turn:
        if index % (round_trips + 1) == round_trips:
            return Turn(blocks=[Text("done")])
        return Turn(blocks=[ToolUse(name="noop", input={"i": index})])

    return turn


def ours(url: str, round_trips: int) -> float:
    pool = ToolPool()
    pool.set_source("bench", [noop])
    session = AgentSession(
        pool=pool,
        ctx=ToolContext(sandbox=Sandbox.at(tempfile.gettempdir())),
        config=AgentConfig(base_url=url, api_key=TEST_API_KEY, max_turns=round_trips + 1),
    )
    worker = AgentWorker()
    events: list[AgentEvent] = []
    try:
        worker.submit(asyncio.sleep(0)).result()  # thread started outside the timing
        started = time.perf_counter()
        finished = worker.submit(session.run("go", emit=events.append, approver=refuse_all)).result()
        elapsed = time.perf_counter() - started
        worker.submit(session.aclose()).result()
    finally:
        worker.shutdown()
    assert finished.turns == round_trips + 1, finished
    return elapsed


async def _raw_loop(url: str, round_trips: int, system: str) -> int:
    client = anthropic.AsyncAnthropic(base_url=url, api_key=TEST_API_KEY)
    tools: list[Any] = [noop.to_param()]
    messages: list[Any] = [{"role": "user", "content": "go"}]
    ctx = ToolContext(sandbox=Sandbox.at(tempfile.gettempdir()))
    turns = 0
    while True:
        turns += 1
        async with client.messages.stream(
            model="claude-sonnet-5-5", max_tokens=32_000, system=system, tools=tools, messages=messages
        ) as stream:
            message = await stream.get_final_message()
        messages.append({"role": "assistant", "content": message.content})
        if message.stop_reason != "tool_use":
            break
        results: list[Any] = []
        for block in message.content:
            if block.type == "tool_use":
                output = await noop.run(noop.Input.model_validate(block.input), ctx)
                results.append({"type": "tool_result", "tool_use_id": block.id, "content": output.content})
        messages.append({"role": "user", "content": results})
    await client.close()
    return turns


def raw(url: str, round_trips: int, system: str) -> float:
    started = time.perf_counter()
    turns = asyncio.run(_raw_loop(url, round_trips, system))
    elapsed = time.perf_counter() - started
    assert turns == round_trips + 1, turns
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--round-trips", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    n: int = args.round_trips
    pool = ToolPool()
    pool.set_source("bench", [noop])
    system = AgentSession(
        pool=pool, ctx=ToolContext(sandbox=Sandbox.at(tempfile.gettempdir()))
    ).system_prompt()
    print(f"tool round trips: {n} (+1 final answer), {args.rounds} rounds, best of each")
    ours_times: list[float] = []
    raw_times: list[float] = []
    with ScriptedServer(script(n)) as server:
        for _ in range(args.rounds):
            raw_times.append(raw(server.url, n, system))
            ours_times.append(ours(server.url, n))
    best_ours, best_raw = min(ours_times), min(raw_times)
    print(f"  raw SDK loop:          {best_raw:.3f} s  ({best_raw / (n + 1) * 1000:.2f} ms per request)")
    print(f"  jupyter_agent loop:    {best_ours:.3f} s  ({best_ours / (n + 1) * 1000:.2f} ms per request)")
    print(f"  ratio ours / raw:      {best_ours / best_raw:.3f}  (target <= 1.2)")
    print(
        f"  all rounds (ours/raw): {[round(t, 3) for t in ours_times]} / {[round(t, 3) for t in raw_times]}"
    )


if __name__ == "__main__":
    main()
