"""The moments of a session Claude Code's hooks name, beyond calls and requests: its start and end, a sub-agent's
start and stop, a compaction, a turn that ended on an error — each event with its documented input, its answer
read as Claude Code reads it (`additionalContext` for the model, a block where the event can block)."""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

from ..base.harness_texts import is_harness_text
from ..permissions.policy import PermissionPolicy
from ..sessions.recorder import SessionRecorder
from ..tools.command_hooks import HookSession
from ..tools.context import ToolContext
from ..tools.hooks import Hooks
from .client import ModelClient
from .config import AgentConfig
from .conversation import Conversation
from .events import AgentEvent, Emit, ErrorEvent, Notice, RunReason
from .stream import TurnAssembler
from .toolrun import ToolRunner


def hook_facts(recorder: SessionRecorder | None, ctx: ToolContext, policy: PermissionPolicy) -> HookSession:
    """The common input fields of a command hook, as they are at its call: the saved session's id and file
    (once it has one), the working directory, the mode."""
    return HookSession(
        session_id=recorder.id if recorder is not None else "",
        transcript_path=str(recorder.path) if recorder is not None and recorder.started else "",
        cwd=str(ctx.sandbox.cwd),
        permission_mode=policy.mode,
    )


class ErrorWatch:
    """An event sink that passes everything on and keeps the last error's message (for StopFailure)."""

    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self.last = ""

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, ErrorEvent):
            self.last = event.message
        self._emit(event)


def last_assistant_text(conversation: Conversation) -> str:
    """The model's last words (its last message's text, without this package's own notes)."""
    for message in reversed(conversation.messages):
        if message["role"] == "assistant":
            content = message["content"]
            if isinstance(content, str):
                return content.strip()
            return "\n".join(
                b["text"] for b in content if b.get("type") == "text" and not is_harness_text(b["text"])
            ).strip()
    return ""


async def session_start(hooks: Hooks, source: str | None, model: str) -> list[str]:
    """SessionStart (`startup`, `resume`, `clear`, `compact`; the matcher reads it): what its hooks add."""
    if source is None or not hooks.events:
        return []
    answer = await hooks.run_event("SessionStart", {"source": source, "model": model}, source)
    return [answer.context] if answer.context else []


async def opening_hooks(hooks: Hooks, request: str, source: str | None, model: str) -> list[str] | str:
    """A run's first hooks: SessionStart (at a conversation's first run), then UserPromptSubmit. What they add
    for the model, or why the request is not sent (a block, or a `continue: false` with its `stopReason`)."""
    hooks.halted.clear()  # a `continue: false` of an earlier run does not end this one
    started = await session_start(hooks, source, model)
    blocked, added = await hooks.run_prompt(request)
    if blocked is not None:
        return blocked.reason
    if (halt := hooks.take_halt()) is not None:
        return f"the agent was stopped by a hook: {halt}"
    return [*started, *added, *map(woken_text, hooks.take_woken())]


def woken_text(said: str) -> str:
    """What an `asyncRewake` hook that exited with code 2 tells the model."""
    return f"[A background hook reports: {said}]"


async def session_end(hooks: Hooks, reason: str) -> None:
    """SessionEnd (`clear`, `other`; the matcher reads it): its hooks run and cannot stop it."""
    if hooks.events:
        await hooks.run_event("SessionEnd", {"reason": reason}, reason)


async def stop_failure(hooks: Hooks, error: str, last_message: str) -> None:
    """StopFailure: the turn ended on an API error instead of a Stop (its output is ignored, as documented)."""
    if hooks.events:
        fields = {"error": error or "the run failed", "last_assistant_message": last_message}
        await hooks.run_event("StopFailure", fields, None)


async def subagent_start(hooks: Hooks, agent_id: str, agent_type: str) -> str:
    """SubagentStart (the matcher reads the type): the context its hooks add to the sub-agent's task."""
    if not hooks.events:
        return ""
    answer = await hooks.run_event(
        "SubagentStart", {"agent_id": agent_id, "agent_type": agent_type}, agent_type
    )
    return answer.context


async def subagent_stop(
    hooks: Hooks, *, agent_id: str, agent_type: str, transcript: str, last_message: str, active: bool
) -> str:
    """SubagentStop: why the sub-agent should go on (exit code 2 or `decision: "block"`), or ''."""
    if not hooks.events:
        return ""
    fields = {
        "stop_hook_active": active,
        "agent_id": agent_id,
        "agent_type": agent_type,
        "agent_transcript_path": transcript,
        "last_assistant_message": last_message,
    }
    answer = await hooks.run_event("SubagentStop", fields, agent_type)
    return answer.blocked


async def pre_compact(hooks: Hooks, *, automatic: bool, instructions: str = "") -> str:
    """PreCompact (`manual` / `auto`; the matcher reads it): why not to compact now (exit code 2), or ''."""
    if not hooks.events:
        return ""
    trigger = "auto" if automatic else "manual"
    fields = {"trigger": trigger, "custom_instructions": instructions}
    return (await hooks.run_event("PreCompact", fields, trigger)).blocked


async def post_compact(hooks: Hooks, *, automatic: bool, summary: str, model: str) -> list[str]:
    """PostCompact, then SessionStart with `source: "compact"`: what those hooks add for the model."""
    if not hooks.events:
        return []
    trigger = "auto" if automatic else "manual"
    await hooks.run_event("PostCompact", {"trigger": trigger, "compact_summary": summary}, trigger)
    return await session_start(hooks, "compact", model)


class HookedRun(Protocol):
    """What the Stop hooks and a hook's halt need of a run (`loop.AgentRun` is one), named by use so this
    module does not import the loop that calls it."""

    tools: ToolRunner
    conversation: Conversation
    stop_hook_active: bool

    @property
    def emit(self) -> Emit: ...


async def stop_hooks_continue(run: HookedRun) -> bool:
    """Stop hooks may send the model back to work: their reason becomes the next user message. So does what an
    `asyncRewake` hook woke the agent with while it worked (before the Stop hooks run: the model goes on)."""
    hooks = run.tools.dispatcher.hooks
    if woken := hooks.take_woken():
        run.emit(Notice(level="info", message="a background hook woke the agent: it goes on"))
        run.conversation.add_user_text("\n".join(map(woken_text, woken)))
        return True
    if not hooks.stop:
        return False
    reason = await hooks.run_stop(run.stop_hook_active, last_assistant_text(run.conversation))
    if reason is None:
        return False
    run.stop_hook_active = True
    run.emit(Notice(level="info", message=f"a Stop hook sent the agent back to work: {reason}"))
    run.conversation.add_user_text(f"[A Stop hook asks you to continue: {reason}]")
    return True


def hook_halt(run: HookedRun) -> RunReason | None:
    """A hook said `continue: false`: the run ends here, and the user reads its `stopReason`."""
    reason = run.tools.dispatcher.hooks.take_halt()
    if reason is None:
        return None
    run.emit(Notice(level="warning", message=f"a hook stopped the agent: {reason}"))
    return "blocked"


#: What a prompt hook's answer may use (a JSON object of a line or two).
PROMPT_HOOK_MAX_TOKENS = 1024


async def ask_model(client: ModelClient, config: AgentConfig, prompt: str, model: str) -> str:
    """A `prompt` hook's question, one message to the hook's `model` (else the session's); its answer's text."""
    asked = dataclasses.replace(config, model=model) if model else config
    params: dict[str, Any] = {
        "model": asked.model,
        "max_tokens": PROMPT_HOOK_MAX_TOKENS,
        "messages": [{"role": "user", "content": [{"type": "text", "text": prompt}]}],
    }
    assembler = TurnAssembler()
    async with client.stream(asked, params) as events:
        async for event in events:
            assembler.feed(event)
    return "\n".join(b["text"] for b in assembler.content() if b.get("type") == "text")
