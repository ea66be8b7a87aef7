"""One Claude Code command hook and one run of it (an http hook's run: `http_hook_run.py`): the event as JSON on stdin, exit code 0 / 2 / other, its JSON.

The contract is Claude Code's: exit code 0 is success (stdout may be JSON that decides), exit code 2 blocks
(stderr is the reason), any other exit code or a timeout is a failure the user is told about while the agent
goes on. Hooks run as the user's own commands — not in the Bash sandbox — with the project directory as working
directory and `$CLAUDE_PROJECT_DIR` set, each with its timeout.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from ..base.json_values import is_object
from ..masking import shorten
from ..permissions.policy import CallFacts, Rule
from ..permissions.process import run_process
from .hooks import HookCall

HookEvent = Literal[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "StopFailure",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
]
#: The events of Claude Code's hooks reference this package fires, in the order a session meets them.
HOOK_EVENTS: tuple[HookEvent, ...] = get_args(HookEvent)
#: The reference's other events, and why they never happen here (said once at load).
NOT_FIRED: Mapping[str, str] = {
    "Setup": "there is no `claude --init` here",
    "ConfigChange": "settings files are read again at each run rather than watched",
    "InstructionsLoaded": "AGENTS.md / CLAUDE.md are read with the session's memory, not as separate events",
    "WorktreeCreate": "this package does not make git worktrees",
    "WorktreeRemove": "this package does not make git worktrees",
    "TeammateIdle": "agent teams are not part of this package",
    "TaskCreated": "agent teams are not part of this package",
    "TaskCompleted": "agent teams are not part of this package",
    "Elicitation": "MCP elicitation is not supported here",
    "ElicitationResult": "MCP elicitation is not supported here",
}
#: Claude Code's default: a minute (30 seconds for a prompt hook).
DEFAULT_TIMEOUT = 60.0
PROMPT_TIMEOUT = 30.0
#: Characters kept of what a hook prints.
MAX_OUTPUT_CHARS = 20_000
#: Exit code that blocks (Claude Code's).
BLOCK = 2
#: Matchers that match everything (Claude Code's: `*`, an empty string, or no matcher).
MATCH_ALL = ("", "*")


@dataclass(frozen=True, kw_only=True)
class CommandHook:
    """One `{"type": "command", "command": …}` of a settings file, under its event and matcher."""

    event: HookEvent
    command: str
    #: What the event's matcher reads (a tool name; SessionStart's `source`, PreCompact's `trigger`, …): "" or
    #: "*" for all, a name, or a regular expression (`Edit|Write`).
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
    #: `async: true`: it runs in the background; the event does not wait for it and it cannot decide.
    background: bool = False
    #: `asyncRewake: true`: in the background too, and its exit code 2 wakes the agent with its stderr.
    rewake: bool = False
    #: `type: "prompt"`: `prompt` (with `$ARGUMENTS`, the event's JSON) goes to the model, which answers
    #: `{"ok": …, "reason": …}`; `model` is the hook's own, else the session's.
    kind: Literal["command", "prompt", "http"] = "command"
    prompt: str = ""
    model: str = ""
    #: `type: "http"`: the event is POSTed to `url` with `headers`, whose `$VAR` references are filled only for
    #: the `allowedEnvVars` (`http_hook_run.py`).
    url: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    allowed_env: tuple[str, ...] = ()

    def applies(self, call: HookCall) -> bool:
        """Whether its `if` matches the call, read as a deny rule is (any subcommand of a compound command)."""
        if self.when is None:
            return True
        facts = CallFacts(
            tool=call.tool, subject=call.subject, rule_kind=call.rule_kind, kind="other", read_only=False
        )
        return self.when.matches(facts)

    def matches(self, value: str) -> bool:
        if self.matcher in MATCH_ALL or self.matcher == value:
            return True
        try:
            return re.fullmatch(self.matcher, value) is not None
        except re.error:
            return False

    def describe(self) -> str:
        url = re.sub(r"//[^/@]*@", "//", self.url)  # a password in the url is never shown
        what = shorten({"command": self.command, "prompt": self.prompt, "http": url}[self.kind], 60)
        kind = {"command": "hook", "prompt": "prompt hook", "http": "http hook"}[self.kind]
        return f"{self.event} {kind} `{what}` ({self.source or 'settings'})"


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

    def halt(self) -> str | None:
        """`continue: false`: why the agent stops (`stopReason`, for the user), or None to go on."""
        if self.output.get("continue") is not False:
            return None
        reason = self.output.get("stopReason")
        return reason.strip() if isinstance(reason, str) and reason.strip() else f"{self.hook.describe()}"

    def message(self) -> str:
        """`systemMessage`: a line for the user."""
        value = self.output.get("systemMessage")
        return value.strip() if isinstance(value, str) else ""


def parse_output(stdout: str) -> dict[str, Any]:
    text = stdout.strip()
    if not text.startswith("{"):
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return value if is_object(value) else {}


async def run_hook(hook: CommandHook, stdin: bytes, env: Mapping[str, str] | None) -> HookRun:
    """Run it once with the event on stdin; what it did, never an exception."""
    full_env = {
        **(env if env is not None else os.environ),
        "CLAUDE_PROJECT_DIR": str(hook.cwd),
        **dict(hook.env),
    }
    try:
        done = await run_process(
            ["/bin/sh", "-c", hook.command],
            cwd=hook.cwd,
            timeout=hook.timeout,
            env=full_env,
            stdin=stdin,
            max_output_chars=MAX_OUTPUT_CHARS,
        )
    except OSError as exc:
        return HookRun(hook=hook, code=None, stdout="", stderr="", output={}, failure=failed(hook, str(exc)))
    if done.timed_out:
        failure = failed(hook, f"it timed out after {hook.timeout:g} s and was stopped")
        return HookRun(hook=hook, code=None, stdout="", stderr="", output={}, failure=failure)
    failure = ""
    if done.returncode not in (0, BLOCK):
        said = done.stderr.strip().splitlines()
        failure = failed(hook, f"it exited with code {done.returncode}" + (f": {said[-1]}" if said else ""))
    output = parse_output(done.stdout) if done.returncode == 0 else {}
    return HookRun(
        hook=hook,
        code=done.returncode,
        stdout=done.stdout,
        stderr=done.stderr,
        output=output,
        failure=failure,
    )


#: Asks the model one question: (the prompt, the model to ask or "" for the session's) → its answer's text.
AskModel = Callable[[str, str], Awaitable[str]]
#: The events Claude Code runs `prompt` hooks for (of those fired here).
PROMPT_EVENTS = frozenset(
    {
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PermissionRequest",
        "UserPromptSubmit",
        "Stop",
        "SubagentStop",
    }
)
#: What a prompt hook's model is told about its answer (Claude Code's prompt-hook contract).
PROMPT_ANSWER = (
    "You are a hook that decides on an event of a coding agent. Answer with one JSON object and nothing else: "
    '{"ok": true} to let it go on, or {"ok": false, "reason": "why"} to block it.'
)


async def run_prompt_hook(hook: CommandHook, stdin: bytes, ask: AskModel | None) -> HookRun:
    """A `prompt` hook: the model's `{"ok": false, "reason"}` blocks as exit code 2 does, `ok: true` is success,
    anything else (no model to ask, an answer that is not that JSON, a timeout) a failure."""
    if ask is None:
        return HookRun(
            hook=hook, code=None, stdout="", stderr="", output={}, failure=failed(hook, "no model")
        )
    event = stdin.decode("utf-8")
    text = (
        hook.prompt.replace("$ARGUMENTS", event)
        if "$ARGUMENTS" in hook.prompt
        else f"{hook.prompt}\n\n{event}"
    )
    try:
        said = await asyncio.wait_for(ask(f"{PROMPT_ANSWER}\n\n{text}", hook.model), hook.timeout)
    except TimeoutError:
        failure = failed(hook, f"the model did not answer within {hook.timeout:g} s")
        return HookRun(hook=hook, code=None, stdout="", stderr="", output={}, failure=failure)
    except Exception as exc:  # the API refused or failed: the agent goes on, as for a failing command
        return HookRun(hook=hook, code=None, stdout="", stderr="", output={}, failure=failed(hook, str(exc)))
    start, end = said.find("{"), said.rfind("}")
    answer = parse_output(said[start : end + 1]) if 0 <= start < end else {}
    if not isinstance(answer.get("ok"), bool):
        failure = failed(hook, f'its answer was not {{"ok": …, "reason": …}}: {shorten(said, 80)!r}')
        return HookRun(hook=hook, code=None, stdout=said, stderr="", output={}, failure=failure)
    if answer["ok"]:
        return HookRun(hook=hook, code=0, stdout="", stderr="", output={})
    reason = str(answer.get("reason") or "").strip()
    return HookRun(hook=hook, code=BLOCK, stdout="", stderr=reason, output={})


def failed(hook: CommandHook, why: str) -> str:
    return f"{hook.describe()} failed: {why}; the agent went on without it"
