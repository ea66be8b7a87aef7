"""Claude Code's command hooks (`hooks` in `.claude/settings.json`): shell commands run around calls and turns.

The contract is Claude Code's: the event goes to the command as JSON on stdin; exit code 0 is success (stdout may
be JSON that decides), exit code 2 blocks (stderr is the reason), any other exit code or a timeout is a failure
the user is told about while the agent goes on. Hooks run as the user's own commands — not in the Bash sandbox —
with the project directory as working directory and `$CLAUDE_PROJECT_DIR` set, each with its timeout; the hooks
of one event run at the same time. What they print is untrusted: it is masked and escaped wherever it is shown,
and what goes back to the model is masked by the Dispatcher or here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..base.json_values import is_object
from ..base.result import ToolResult
from ..masking import mask, shorten
from ..permissions.policy import Allow, Ask, CallFacts, Deny, Rule
from ..permissions.process import run_process
from .hooks import HookCall, PreResult, PromptBlocked, PromptContext, PromptResult, Rewrite

HookEvent = Literal["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"]
HOOK_EVENTS: tuple[HookEvent, ...] = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop")
#: Claude Code's default: a minute.
DEFAULT_TIMEOUT = 60.0
#: Characters kept of what a hook prints.
MAX_OUTPUT_CHARS = 20_000
#: Exit code that blocks (Claude Code's).
BLOCK = 2
#: Matchers that match every tool (Claude Code's: `*`, an empty string, or no matcher).
MATCH_ALL = ("", "*")


@dataclass(frozen=True, kw_only=True)
class CommandHook:
    """One `{"type": "command", "command": …}` of a settings file, under its event and matcher."""

    event: HookEvent
    command: str
    #: Which tools (PreToolUse, PostToolUse): "" or "*" for all, a name, or a regular expression (`Edit|Write`).
    matcher: str = ""
    timeout: float = DEFAULT_TIMEOUT
    #: The settings file it came from (shown when it fails).
    source: str = ""
    #: The working directory it runs in (the project directory).
    cwd: Path
    #: Variables set for it besides `CLAUDE_PROJECT_DIR` (a plugin's `CLAUDE_PLUGIN_ROOT`).
    env: tuple[tuple[str, str], ...] = ()
    #: Its `if`: a permission rule (`Bash(git commit:*)`) the call must match for it to run; None: every call.
    when: Rule | None = None

    def applies(self, call: HookCall) -> bool:
        """Whether its `if` matches the call, read as a deny rule is (any subcommand of a compound command)."""
        if self.when is None:
            return True
        facts = CallFacts(
            tool=call.tool, subject=call.subject, rule_kind=call.rule_kind, kind="other", read_only=False
        )
        return self.when.matches(facts)

    def matches(self, tool: str) -> bool:
        if self.matcher in MATCH_ALL or self.matcher == tool:
            return True
        try:
            return re.fullmatch(self.matcher, tool) is not None
        except re.error:
            return False

    def describe(self) -> str:
        command = shorten(self.command, 60)
        return f"{self.event} hook `{command}` ({self.source or 'settings'})"


@dataclass(frozen=True, kw_only=True)
class HookSession:
    """The fields every event's input carries."""

    session_id: str
    transcript_path: str
    cwd: str
    permission_mode: str


@dataclass(frozen=True, kw_only=True)
class HookRun:
    """What one hook did: its exit code, what it printed (stdout parsed when it is JSON), or why it failed."""

    hook: CommandHook
    code: int | None
    stdout: str
    stderr: str
    output: dict[str, Any]
    failure: str = ""

    @property
    def blocked(self) -> bool:
        return self.code == BLOCK

    def decision(self) -> str:
        """`decision` (top level), lower-cased: `block`, `approve`, or ''."""
        value = self.output.get("decision")
        return value.lower() if isinstance(value, str) else ""

    def specific(self, key: str) -> Any:
        """A field of `hookSpecificOutput`."""
        found = self.output.get("hookSpecificOutput")
        return found.get(key) if is_object(found) else None

    def reason(self) -> str:
        """Why it blocked or decided: stderr on exit code 2, else the JSON's reason."""
        if self.blocked:
            return self.stderr.strip() or f"{self.hook.describe()} exited with code 2"
        for value in (self.specific("permissionDecisionReason"), self.output.get("reason")):
            if isinstance(value, str) and value.strip():
                return value.strip()
        return ""

    def context(self) -> str:
        value = self.specific("additionalContext")
        return value if isinstance(value, str) else ""


def _parse_output(stdout: str) -> dict[str, Any]:
    text = stdout.strip()
    if not text.startswith("{"):
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return value if is_object(value) else {}


class CommandHooks:
    """The command hooks of a session, as the callables `Hooks` runs (`pre_tool_use`, `post_tool_use`, …).

    `session` gives the common input fields at each call; `report` tells the user a line (a hook that failed or
    timed out, a hook's `systemMessage`) — it is called on the worker thread.
    """

    def __init__(
        self,
        hooks: Sequence[CommandHook],
        *,
        session: Callable[[], HookSession],
        report: Callable[[str], None],
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.hooks = tuple(hooks)
        self.session = session
        self.report = report
        self.env = env

    def of(self, event: HookEvent) -> list[CommandHook]:
        return [hook for hook in self.hooks if hook.event == event]

    async def _run_all(
        self, event: HookEvent, fields: dict[str, Any], tool: str | None = None, call: HookCall | None = None
    ) -> list[HookRun]:
        wanted = [h for h in self.of(event) if tool is None or h.matches(tool)]
        wanted = [h for h in wanted if call is None or h.applies(call)]
        unique = list({h.command: h for h in wanted}.values())  # the same command once, as Claude Code does
        if not unique:
            return []
        session = self.session()
        payload = {
            "session_id": session.session_id,
            "transcript_path": session.transcript_path,
            "cwd": session.cwd,
            "permission_mode": session.permission_mode,
            "hook_event_name": event,
            **fields,
        }
        stdin = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8")
        runs = await asyncio.gather(*(self._run_one(hook, stdin) for hook in unique))
        for run in runs:
            if run.failure:
                self.report(mask(run.failure))
            message = run.output.get("systemMessage")
            if isinstance(message, str) and message.strip():
                self.report(mask(f"{run.hook.describe()}: {message.strip()}"))
        return runs

    async def _run_one(self, hook: CommandHook, stdin: bytes) -> HookRun:
        env = {
            **(self.env if self.env is not None else os.environ),
            "CLAUDE_PROJECT_DIR": str(hook.cwd),
            **dict(hook.env),
        }
        try:
            done = await run_process(
                ["/bin/sh", "-c", hook.command],
                cwd=hook.cwd,
                timeout=hook.timeout,
                env=env,
                stdin=stdin,
                max_output_chars=MAX_OUTPUT_CHARS,
            )
        except OSError as exc:
            return HookRun(
                hook=hook, code=None, stdout="", stderr="", output={}, failure=_failed(hook, str(exc))
            )
        if done.timed_out:
            failure = _failed(hook, f"it timed out after {hook.timeout:g} s and was stopped")
            return HookRun(hook=hook, code=None, stdout="", stderr="", output={}, failure=failure)
        failure = ""
        if done.returncode not in (0, BLOCK):
            said = done.stderr.strip().splitlines()
            failure = _failed(
                hook, f"it exited with code {done.returncode}" + (f": {said[-1]}" if said else "")
            )
        output = _parse_output(done.stdout) if done.returncode == 0 else {}
        return HookRun(
            hook=hook,
            code=done.returncode,
            stdout=done.stdout,
            stderr=done.stderr,
            output=output,
            failure=failure,
        )

    # -- the events, as `Hooks` calls them ------------------------------------------------------------------

    async def pre_tool_use(self, call: HookCall) -> PreResult:
        """Exit code 2 or a `deny` blocks (the reason goes to the model); `ask` asks; `allow` lets it through
        where the mode would ask; `updatedInput` replaces the input. A block wins over everything else."""
        fields = {"tool_name": call.tool, "tool_input": call.input, "tool_use_id": call.tool_use_id}
        runs = await self._run_all("PreToolUse", fields, call.tool, call)
        verdicts = [_pre_verdict(run, call.tool) for run in runs]
        for kind in (Deny, Rewrite, Ask, Allow):
            for verdict in verdicts:
                if isinstance(verdict, kind):
                    return verdict
        return None

    async def post_tool_use(self, call: HookCall, result: ToolResult) -> ToolResult | None:
        """The tool ran: exit code 2, a `block` decision or `additionalContext` add text for the model."""
        response = {
            "content": mask(result.content),
            "is_error": result.is_error,
            "error_code": result.error_code,
        }
        fields = {"tool_name": call.tool, "tool_input": call.input, "tool_use_id": call.tool_use_id}
        runs = await self._run_all("PostToolUse", {**fields, "tool_response": response}, call.tool, call)
        notes = [
            f"[PostToolUse hook feedback: {text}]"
            for run in runs
            for text in (run.reason() if run.blocked or run.decision() == "block" else "", run.context())
            if text
        ]
        if not notes:
            return None
        content = "\n\n".join([result.content, *notes]) if result.content else "\n\n".join(notes)
        return dataclasses.replace(result, content=content)

    async def user_prompt_submit(self, prompt: str) -> PromptResult:
        """Exit code 2 or a `block` decision stops the request (the reason is shown to the user only); what a
        hook prints on success (or its `additionalContext`) is added to the request."""
        runs = await self._run_all("UserPromptSubmit", {"prompt": prompt})
        for run in runs:
            if run.blocked or run.decision() == "block":
                return PromptBlocked(
                    reason=mask(run.reason() or f"{run.hook.describe()} blocked the request")
                )
        added = [run.context() or ("" if run.output or run.code != 0 else run.stdout.strip()) for run in runs]
        text = "\n".join(a for a in added if a)
        return PromptContext(text=mask(text)) if text else None

    async def stop(self, active: bool) -> str | None:
        """Exit code 2 or a `block` decision sends the model back to work, with the reason as the next message."""
        runs = await self._run_all("Stop", {"stop_hook_active": active})
        reasons = [run.reason() for run in runs if run.blocked or run.decision() == "block"]
        text = "\n".join(r for r in reasons if r)
        return mask(text) if text else None


def _failed(hook: CommandHook, why: str) -> str:
    return f"{hook.describe()} failed: {why}; the agent went on without it"


def _pre_verdict(run: HookRun, tool: str) -> PreResult:
    decision = run.specific("permissionDecision")
    decision = decision.lower() if isinstance(decision, str) else ""
    legacy = run.decision()
    if run.blocked or decision == "deny" or legacy == "block":
        reason = run.reason() or "a PreToolUse hook refused it"
        return Deny(message=f"{tool} was blocked by the {run.hook.describe()}: {reason}")
    then: Allow | Ask | None = None
    if decision == "ask":
        then = Ask(reason=run.reason() or f"the {run.hook.describe()} asks for approval")
    elif decision == "allow" or legacy == "approve":
        then = Allow(reason=run.reason() or f"allowed by the {run.hook.describe()}")
    updated = run.specific("updatedInput")
    if is_object(updated):  # Claude Code: `updatedInput` with `allow` runs the new input without asking
        return Rewrite(input=dict(updated), then=then)
    return then
