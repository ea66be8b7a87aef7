"""Retries: a 429 whose `retry-after` is 10 ms vs a 500 with no header (the client's own backoff, ~0.5 s).

The agent's model client (its retry loop, agent/retry.py, over the real `anthropic` SDK) against the scripted
server; each case is a failed request then a successful one. The unit tests check that the 429's wait is
announced and capped; how long it waits is a timing figure, so it is measured here. Prints the ratio
(target < 0.5: the header is honoured).

    .venv/bin/python benchmarks/retry_bench.py
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_agent.agent import AgentConfig
from jupyter_agent.agent.client import ModelClient
from jupyter_agent.testing import TEST_API_KEY, Fault, ScriptedServer, Text, Turn

ROUNDS = 3


def timed(fault: Fault) -> float:
    with ScriptedServer([Turn(fault=fault), Turn(blocks=[Text("ok")])]) as server:
        config = AgentConfig(base_url=server.url, api_key=TEST_API_KEY, max_retries=2)
        params = {
            "model": "claude-sonnet-5-5",
            "max_tokens": 10,
            "messages": [{"role": "user", "content": "hi"}],
        }

        async def once() -> float:
            client = ModelClient()
            start = time.perf_counter()
            async with client.stream(config, params) as events:
                async for _ in events:
                    pass
            elapsed = time.perf_counter() - start
            await client.close()
            return elapsed

        elapsed = asyncio.run(once())
        assert len(server.requests) == 2
        return elapsed


def main() -> None:
    honoured = min(timed(Fault.rate_limit(retry_after=0.01)) for _ in range(ROUNDS))
    backoff = min(timed(Fault.server_error()) for _ in range(ROUNDS))
    print(f"429 with retry-after 0.01 s, then ok: {honoured * 1000:7.1f} ms")
    print(f"500 with the client's backoff, then ok: {backoff * 1000:7.1f} ms")
    print(f"ratio {honoured / backoff:.2f} (target < 0.5: the retry-after header is honoured)")


if __name__ == "__main__":
    main()
