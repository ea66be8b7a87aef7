"""Helpers for the agent tests: a session on a real worker thread, recording the events it emits."""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from jupyter_agent.agent import AgentSession, AgentWorker, RunFinished
from jupyter_agent.agent.events import AgentEvent
from jupyter_agent.base.harness_texts import is_harness_text, told_texts
from jupyter_agent.testing import ScriptedServer
from jupyter_agent.tools.dispatch import Approver, refuse_all

E = TypeVar("E")


class Harness:
    """Runs `session.run` on an `AgentWorker` and records every event the loop emits (from its thread)."""

    def __init__(self, server: ScriptedServer, session: AgentSession, worker: AgentWorker) -> None:
        self.server = server
        self.session = session
        self.worker = worker
        self.events: list[AgentEvent] = []
        self._changed = threading.Condition()

    def emit(self, event: AgentEvent) -> None:
        with self._changed:
            self.events.append(event)
            self._changed.notify_all()

    def start(self, request: str, *, approver: Approver = refuse_all, **kw: Any) -> Any:
        return self.worker.submit(self.session.run(request, emit=self.emit, approver=approver, **kw))

    def run(
        self,
        request: str,
        *,
        approver: Approver = refuse_all,
        config: dict[str, Any] | None = None,
        **kw: Any,
    ) -> RunFinished:
        """One run; `config` changes `AgentConfig` fields for this run only, as the host does for a run's flags."""
        kept = self.session.config
        if config:
            self.session.config = dataclasses.replace(kept, **config)
        try:
            return self.start(request, approver=approver, **kw).result(timeout=30)
        finally:
            self.session.config = kept

    def wait_for(
        self, kind: type[E], predicate: Callable[[E], bool] = lambda _: True, timeout: float = 10
    ) -> E:
        with self._changed:
            found: list[E] = []

            def seen() -> bool:
                found[:] = [e for e in self.events if isinstance(e, kind) and predicate(e)]
                return bool(found)

            if not self._changed.wait_for(seen, timeout):
                raise TimeoutError(f"no {kind.__name__} event within {timeout} s; got {self.events}")
            return found[0]

    def of(self, kind: type[E]) -> list[E]:
        with self._changed:
            return [e for e in self.events if isinstance(e, kind)]

    def clear(self) -> None:
        with self._changed:
            self.events.clear()


HarnessFactory = Callable[..., Harness]


def texts(message: dict[str, Any]) -> list[str]:
    """The text blocks of a message that the user or the run wrote (the harness's context and updates left out)."""
    content = message["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    return [b["text"] for b in blocks if b["type"] == "text" and not is_harness_text(b["text"])]


def context_text(body: dict[str, Any]) -> str:
    """Every context and update text the harness appended in the request, joined."""
    return "\n".join(told_texts(body["messages"]))


def assert_valid_request(body: dict[str, Any]) -> None:
    """What the Messages API requires of `messages`: starts with user, roles alternate (a system message follows a
    user message), every tool_use is answered in the next message, every tool_result answers the previous
    message, no empty text."""
    messages: list[dict[str, Any]] = [m for m in body["messages"] if m["role"] != "system"]
    for before, after in itertools.pairwise(body["messages"]):
        assert after["role"] != "system" or before["role"] == "user", (
            "a system message must follow a user one"
        )
    assert messages and messages[0]["role"] == "user"
    for before, after in itertools.pairwise(messages):
        assert before["role"] != after["role"], f"two {before['role']} messages in a row"
    for i, message in enumerate(messages):
        blocks: list[dict[str, Any]] = (
            message["content"] if isinstance(message["content"], list) else [{"type": "text", "text": "x"}]
        )
        for block in blocks:
            assert not (block["type"] == "text" and not block["text"]), "empty text block"
        if message["role"] == "user":
            results = [b for b in blocks if b["type"] == "tool_result"]
            assert blocks[: len(results)] == results, "tool_result blocks must come first"
            previous = messages[i - 1] if i else {"content": []}
            asked = {b["id"] for b in previous["content"] if b["type"] == "tool_use"}
            assert {b["tool_use_id"] for b in results} <= asked
        else:
            ids = [b["id"] for b in blocks if b["type"] == "tool_use"]
            if ids:
                assert i + 1 < len(messages), "tool_use at the end of the conversation"
                answered = {
                    b.get("tool_use_id") for b in messages[i + 1]["content"] if b["type"] == "tool_result"
                }
                assert set(ids) == answered, f"unanswered tool_use: {set(ids) - answered}"


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of the request's last user message."""
    last_user = [m for m in body["messages"] if m["role"] == "user"][-1]
    return [b for b in last_user["content"] if b["type"] == "tool_result"]


def result_text(block: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in block["content"] if b["type"] == "text")
