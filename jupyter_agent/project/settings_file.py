"""One Claude Code settings file (`settings.json`, `settings.local.json`), read into what this agent uses.

Used: `permissions.allow / ask / deny` (Claude Code's rule syntax and path anchors), `permissions.defaultMode`,
`permissions.additionalDirectories`, `hooks` (every event of Claude Code's hooks reference this package
fires, `command_hook_run.HOOK_EVENTS`; `type: command`), and `env`, `outputStyle` and the `.mcp.json` approvals
(`settings_keys.py`). Other keys belong to Claude Code and are left alone. A value this agent cannot use is one
warning that names the file and the key, and everything else in the file still loads; a file that is not JSON
is one warning and nothing of it loads.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from ..base.confined import read_confined
from ..base.errors import ToolError
from ..base.json_values import is_array, is_object
from ..permissions.modes import MODES, Mode
from ..permissions.policy import Rule
from ..tools.command_hook_run import (
    DEFAULT_TIMEOUT,
    HOOK_EVENTS,
    MATCH_ALL,
    NOT_FIRED,
    PROMPT_EVENTS,
    PROMPT_TIMEOUT,
    CommandHook,
    HookEvent,
)
from .anchors import effective_rule
from .settings_keys import SettingsKeys, read_settings_keys

RuleKind = Literal["allow", "ask", "deny"]
RULE_KINDS: tuple[RuleKind, ...] = ("allow", "ask", "deny")
#: "user": `~/.claude/settings.json`; "project": `.claude/settings.json`; "local": `.claude/settings.local.json`.
Scope = Literal["user", "project", "local"]
#: Settings files larger than this are refused (a settings file is a few kilobytes).
MAX_SETTINGS_BYTES = 1_000_000
#: Why `type: "agent"` hooks are skipped: Claude Code starts a sub-agent with tools at each matching event.
AGENT_HOOK = (
    "an agent hook would start a sub-agent with tools at every matching event; a 'prompt' hook asks the model "
    "without tools"
)


@dataclass(frozen=True, kw_only=True)
class SourcedRule:
    """A rule as written in a settings file, as the policy reads it, and where it came from."""

    text: str
    effective: str
    kind: RuleKind
    source: Path


@dataclass(frozen=True, kw_only=True)
class SettingsFile:
    path: Path
    scope: Scope
    rules: tuple[SourcedRule, ...] = ()
    default_mode: Mode | None = None
    additional_dirs: tuple[Path, ...] = ()
    hooks: tuple[CommandHook, ...] = ()
    #: `enabledPlugins`: `name@marketplace` → on or off (`project/plugins.py`).
    enabled_plugins: tuple[tuple[str, bool], ...] = ()
    #: `env`, `outputStyle`, the `.mcp.json` approvals.
    keys: SettingsKeys = field(default_factory=SettingsKeys)
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Anchors:
    """Where a file's relative things start: `/path` from `base` (the directory holding its `.claude/`),
    `./path` and hooks from the project directory, `~/` from home."""

    base: Path
    project_dir: Path
    home: Path
    #: Where the file's real path must be (`base.confined`): a project's roots and directory, or `~/.claude`;
    #: empty: the folder that holds it.
    areas: tuple[Path, ...] = ()


@dataclass
class _Reader:
    path: Path
    anchors: Anchors
    warnings: list[str] = field(default_factory=list[str])

    def warn(self, key: str, message: str) -> None:
        self.warnings.append(f"jupyter_agent: {self.path}: {key}: {message}")

    def strings(self, value: object, key: str) -> list[tuple[int, str]]:
        if value is None:
            return []
        if not is_array(value):
            self.warn(key, f"expected a list of strings, got {type(value).__name__}; ignored")
            return []
        found: list[tuple[int, str]] = []
        for index, item in enumerate(value):
            if isinstance(item, str):
                found.append((index, item))
            else:
                self.warn(f"{key}[{index}]", f"expected a string, got {type(item).__name__}; skipped")
        return found


def read_settings_file(path: Path, scope: Scope, anchors: Anchors) -> SettingsFile | None:
    """The file's settings; None when it does not exist. Read under the package's confinement rule (a link out of
    the project is refused, with a warning), as UTF-8 with or without a byte-order mark, as the `.md` files are."""
    reader = _Reader(path=path, anchors=anchors)
    try:
        raw = read_confined(path, anchors.areas or (path.parent,), limit=MAX_SETTINGS_BYTES + 1)
        if len(raw) > MAX_SETTINGS_BYTES:
            reader.warn(
                "(file)",
                f"over {MAX_SETTINGS_BYTES:,} bytes is too large for a settings file; it was not loaded",
            )
            return SettingsFile(path=path, scope=scope, warnings=tuple(reader.warnings))
        data: object = json.loads(raw.decode("utf-8-sig"))
    except FileNotFoundError:
        return None
    except ToolError as exc:
        reader.warn("(file)", f"{exc.message}; it was not loaded")
        return SettingsFile(path=path, scope=scope, warnings=tuple(reader.warnings))
    except (OSError, UnicodeDecodeError) as exc:
        reader.warn("(file)", f"cannot be read ({exc}); it was not loaded")
        return SettingsFile(path=path, scope=scope, warnings=tuple(reader.warnings))
    except json.JSONDecodeError as exc:
        reader.warn(
            "(file)", f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); it was not loaded"
        )
        return SettingsFile(path=path, scope=scope, warnings=tuple(reader.warnings))
    if not is_object(data):
        reader.warn("(file)", f"expected a JSON object, got {type(data).__name__}; it was not loaded")
        return SettingsFile(path=path, scope=scope, warnings=tuple(reader.warnings))
    permissions = data.get("permissions")
    if permissions is not None and not is_object(permissions):
        reader.warn("permissions", f"expected an object, got {type(permissions).__name__}; ignored")
        permissions = None
    given = permissions or {}
    return SettingsFile(
        path=path,
        scope=scope,
        rules=tuple(rule for kind in RULE_KINDS for rule in _rules(reader, kind, given.get(kind))),
        default_mode=_mode(reader, given.get("defaultMode")),
        additional_dirs=tuple(_directories(reader, given.get("additionalDirectories"))),
        hooks=tuple(_hooks(reader, data.get("hooks"))),
        enabled_plugins=_enabled_plugins(reader, data.get("enabledPlugins")),
        keys=read_settings_keys(data, reader.warn),
        warnings=tuple(reader.warnings),
    )


def _enabled_plugins(reader: _Reader, value: object) -> tuple[tuple[str, bool], ...]:
    if value is None:
        return ()
    if not is_object(value):
        reader.warn(
            "enabledPlugins", f"expected an object of true / false, got {type(value).__name__}; ignored"
        )
        return ()
    found: list[tuple[str, bool]] = []
    for key, on in value.items():
        if isinstance(on, bool):
            found.append((key, on))
        else:
            reader.warn(f"enabledPlugins.{key}", f"expected true or false, got {on!r}; ignored")
    return tuple(found)


def read_hooks_file(path: Path, anchors: Anchors) -> tuple[list[CommandHook], list[str]]:
    """A plugin's `hooks/hooks.json` (`{"hooks": {event: [...]}}`, as in a settings file): its hooks and the
    warnings; none when there is no such file."""
    reader = _Reader(path=path, anchors=anchors)
    try:
        data: object = json.loads(
            read_confined(path, anchors.areas, limit=MAX_SETTINGS_BYTES).decode("utf-8-sig")
        )
    except FileNotFoundError:
        return [], []
    except (ToolError, OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        reader.warn("(file)", f"cannot be read ({getattr(exc, 'message', exc)}); its hooks are not run")
        return [], reader.warnings
    hooks = _hooks(reader, data.get("hooks") if is_object(data) else data)
    return hooks, reader.warnings


def read_inline_hooks(where: Path, value: object, anchors: Anchors) -> tuple[list[CommandHook], list[str]]:
    """Hooks written inline in a plugin's `plugin.json` or marketplace entry (`"hooks": {event: [...]}`, the
    shape of a hooks file's `hooks`); `where` is the file the warnings name."""
    reader = _Reader(path=where, anchors=anchors)
    return _hooks(reader, value), reader.warnings


def _rules(reader: _Reader, kind: RuleKind, value: object) -> list[SourcedRule]:
    key = f"permissions.{kind}"
    rules: list[SourcedRule] = []
    anchors = reader.anchors
    for index, text in reader.strings(value, key):
        try:
            effective = effective_rule(
                text, base=anchors.base, project_dir=anchors.project_dir, home=anchors.home
            )
        except ValueError as exc:
            reader.warn(f"{key}[{index}]", f"{exc}; skipped")
            continue
        rules.append(SourcedRule(text=text, effective=effective, kind=kind, source=reader.path))
    return rules


def _mode(reader: _Reader, value: object) -> Mode | None:
    if value is None:
        return None
    if value not in MODES:
        reader.warn("permissions.defaultMode", f"{value!r} is not a mode here ({', '.join(MODES)}); ignored")
        return None
    return value


def _directories(reader: _Reader, value: object) -> list[Path]:
    found: list[Path] = []
    for index, text in reader.strings(value, "permissions.additionalDirectories"):
        path = Path(os.path.expanduser(text))
        path = path if path.is_absolute() else reader.anchors.project_dir / path
        if not path.is_dir():
            reader.warn(f"permissions.additionalDirectories[{index}]", f"{path} is not a directory; skipped")
            continue
        found.append(Path(os.path.realpath(path)))
    return found


def _hooks(reader: _Reader, value: object) -> list[CommandHook]:
    if value is None:
        return []
    if not is_object(value):
        reader.warn("hooks", f"expected an object of events, got {type(value).__name__}; ignored")
        return []
    hooks: list[CommandHook] = []
    for event, groups in value.items():
        if event in NOT_FIRED:
            reader.warn(f"hooks.{event}", f"never fired here ({NOT_FIRED[event]}); ignored")
            continue
        if event not in HOOK_EVENTS:
            reader.warn(f"hooks.{event}", "not an event of Claude Code's hooks reference; ignored")
            continue
        if not is_array(groups):
            reader.warn(f"hooks.{event}", "expected a list of {matcher, hooks}; ignored")
            continue
        for number, group in enumerate(groups):
            hooks += _group(reader, event, f"hooks.{event}[{number}]", group)
    return hooks


def _group(reader: _Reader, event: HookEvent, key: str, group: object) -> list[CommandHook]:
    if not is_object(group):
        reader.warn(key, "expected an object with matcher and hooks; skipped")
        return []
    matcher = group.get("matcher", "")
    if not isinstance(matcher, str):
        reader.warn(f"{key}.matcher", "expected a string; the group is skipped")
        return []
    try:
        if matcher not in MATCH_ALL:  # `*` is Claude Code's "every tool", not a regular expression
            re.compile(matcher)
    except re.error as exc:
        reader.warn(
            f"{key}.matcher", f"{matcher!r} is not a tool name or a regular expression ({exc}); skipped"
        )
        return []
    entries = group.get("hooks")
    if not is_array(entries):
        reader.warn(f"{key}.hooks", "expected a list of hooks; the group is skipped")
        return []
    made: list[CommandHook] = []
    for number, entry in enumerate(entries):
        hook = _hook(reader, event, matcher, f"{key}.hooks[{number}]", entry)
        if hook is not None:
            made.append(hook)
    return made


def _hook(reader: _Reader, event: HookEvent, matcher: str, key: str, entry: object) -> CommandHook | None:
    if not is_object(entry):
        reader.warn(key, "expected an object; skipped")
        return None
    kind, command, timeout = entry.get("type"), entry.get("command"), entry.get("timeout", DEFAULT_TIMEOUT)
    if kind == "prompt":
        return _prompt_hook(reader, event, matcher, key, entry)
    if kind == "http":
        return _http_hook(reader, event, matcher, key, entry)
    if kind != "command":
        why = AGENT_HOOK if kind == "agent" else "only 'command', 'prompt' and 'http' hooks are"
        reader.warn(f"{key}.type", f"{kind!r} hooks are not run here ({why}); skipped")
        return None
    if not isinstance(command, str) or not command.strip():
        reader.warn(f"{key}.command", "expected the command to run; skipped")
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        reader.warn(
            f"{key}.timeout", f"expected a number of seconds, got {timeout!r}; {DEFAULT_TIMEOUT:g} s used"
        )
        timeout = DEFAULT_TIMEOUT
    return CommandHook(
        event=event,
        command=command,
        matcher=matcher,
        timeout=float(timeout),
        source=str(reader.path),
        cwd=reader.anchors.project_dir,
        when=_when(reader, f"{key}.if", entry.get("if")),
        background=entry.get("async") is True or entry.get("asyncRewake") is True,
        rewake=entry.get("asyncRewake") is True,
    )


def _prompt_hook(
    reader: _Reader, event: HookEvent, matcher: str, key: str, entry: dict[str, Any]
) -> CommandHook | None:
    """A `type: "prompt"` hook: its prompt goes to the model (the hook's `model`, else the session's)."""
    prompt, model, timeout = entry.get("prompt"), entry.get("model", ""), entry.get("timeout", PROMPT_TIMEOUT)
    if event not in PROMPT_EVENTS:
        reader.warn(
            f"{key}.type", f"prompt hooks run for {', '.join(sorted(PROMPT_EVENTS))}, not {event}; skipped"
        )
        return None
    if not isinstance(prompt, str) or not prompt.strip():
        reader.warn(f"{key}.prompt", "expected the prompt to send to the model; skipped")
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        reader.warn(
            f"{key}.timeout", f"expected a number of seconds, got {timeout!r}; {PROMPT_TIMEOUT:g} s used"
        )
        timeout = PROMPT_TIMEOUT
    return CommandHook(
        event=event,
        command="",
        kind="prompt",
        prompt=prompt,
        model=model if isinstance(model, str) else "",
        matcher=matcher,
        timeout=float(timeout),
        source=str(reader.path),
        cwd=reader.anchors.project_dir,
        when=_when(reader, f"{key}.if", entry.get("if")),
    )


def _http_hook(
    reader: _Reader, event: HookEvent, matcher: str, key: str, entry: dict[str, Any]
) -> CommandHook | None:
    """A `type: "http"` hook: the event POSTed to its `url` (http or https), with its `headers`."""
    url, headers, allowed = entry.get("url"), entry.get("headers", {}), entry.get("allowedEnvVars", [])
    if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
        reader.warn(f"{key}.url", f"expected an http:// or https:// address, got {url!r}; skipped")
        return None
    if not is_object(headers) or not all(isinstance(v, str) for v in headers.values()):
        reader.warn(f"{key}.headers", "expected an object of header names to text; no headers sent")
        headers = {}
    if not is_array(allowed) or not all(isinstance(n, str) for n in allowed):
        reader.warn(f"{key}.allowedEnvVars", "expected a list of variable names; no variable is filled in")
        allowed = []
    base = _hook(reader, event, matcher, key, {**entry, "type": "command", "command": url})
    return base and dataclasses.replace(
        base,
        kind="http",
        command="",
        url=url,
        headers=tuple((str(n), str(v)) for n, v in headers.items()),
        allowed_env=tuple(str(n) for n in allowed),
    )


def _when(reader: _Reader, key: str, value: object) -> Rule | None:
    """A hook's `if` (`Bash(git commit:*)`); one it cannot read leaves the hook running on every call (a guard
    that runs too often, never one that stops guarding)."""
    if value is None:
        return None
    try:
        if not isinstance(value, str):
            raise ValueError(f"expected a permission rule, got {type(value).__name__}")
        return Rule.parse(value)
    except ValueError as exc:
        reader.warn(key, f"{exc}; the hook runs on every call its matcher names")
        return None
