"""A run's small, fast model (`tools/small_model.py`'s `SmallModel`): one request, no tools, no conversation.

It goes through the run's own client, so to the same endpoint with the same credentials, and through the same
sink as every request (`ModelClient.stream` masks the body with the secrets known at send time: a secret in a
fetched page never reaches the small model either). Its usage is priced at the small model's rates and added
to the run's tally (`account`), so `budget_usd` and the session's budget count it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

from ..base.errors import ToolError
from .api_errors import describe_api_error
from .client import ModelClient, without_unsupported
from .config import AgentConfig
from .events import Usage
from .models import family_model
from .stream import TurnAssembler


class Account(Protocol):
    """Adds a side request's usage, priced at `model`'s rates, to the run's tally (`AgentRun.account`)."""

    def __call__(self, turn: Usage, *, model: str | None = None) -> None: ...


def small_model_name(config: AgentConfig) -> str:
    """`small_model` when set; else the newest Haiku, or the session's model when that is named the endpoint's
    own way (a family name would not reach the same endpoint's models there)."""
    return config.small_model or family_model("haiku", config.model) or config.model


class RunSmallModel:
    """The small model as one run asks it (the run sets it on its scope)."""

    def __init__(self, *, client: ModelClient, config: AgentConfig, account: Account) -> None:
        self.client = client
        self.config = config
        self.account = account

    async def answer(self, *, system: str, content: str, max_tokens: int) -> str:
        model = small_model_name(self.config)
        config = dataclasses.replace(self.config, model=model)
        params: dict[str, Any] = {
            "model": model,
            "max_tokens": max_tokens,
            "system": [{"type": "text", "text": system}],
            "messages": [{"role": "user", "content": [{"type": "text", "text": content}]}],
        }
        assembler = TurnAssembler()
        try:
            async with self.client.stream(
                config, without_unsupported(params, self.client.unsupported)
            ) as events:
                async for event in events:
                    assembler.feed(event)
        except Exception as exc:
            described = describe_api_error(exc, config, self.client.endpoint(config))
            if described is None:
                raise
            raise ToolError(
                "EXECUTION_ERROR", f"the small model ({model}) could not answer: {described[0]}"
            ) from exc
        finally:
            if assembler.usage != Usage():
                self.account(assembler.usage, model=model)
        text = "\n".join(b["text"] for b in assembler.content() if b.get("type") == "text").strip()
        if not text:
            raise ToolError("EXECUTION_ERROR", f"the small model ({model}) gave an empty answer")
        return text
