"""`%agent serve [stop] [--port N] [--token-file PATH] [--mode MODE] [--allow RULES] [--deny RULES]`: the words
parsed into one value, every mistake named with its fix."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..permissions.modes import MODES, Mode

USAGE = (
    "usage: %agent serve [--port N] [--token-file PATH] [--mode default|acceptEdits|plan|bypassPermissions] "
    "[--allow RULES] [--deny RULES] [--approval-timeout S]; %agent serve stop"
)
#: How long an outside call waits for the user's answer to an approval, unless `--approval-timeout` says.
APPROVAL_TIMEOUT = 120.0


class ServeUsageError(ValueError):
    """A mistake in the `%agent serve` line; its message names the word and the fix."""


@dataclass(frozen=True, kw_only=True)
class ServeOptions:
    port: int = 0
    token_file: Path | None = None
    mode: Mode = "default"
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    approval_timeout: float = APPROVAL_TIMEOUT


N = TypeVar("N", int, float)

_VALUED = ("--port", "--token-file", "--mode", "--allow", "--deny", "--approval-timeout")


def parse_serve(words: list[str]) -> ServeOptions:
    """The words after `%agent serve` (not `stop`) as options; ServeUsageError for anything else."""
    from ..host.options import split_rules

    values: dict[str, list[str]] = {flag: [] for flag in _VALUED}
    rest = list(words)
    while rest:
        word = rest.pop(0)
        flag, eq, inline = word.partition("=")
        if flag not in values:
            raise ServeUsageError(f"%agent serve: unexpected {word!r}; {USAGE}")
        if not eq:
            if not rest:
                raise ServeUsageError(f"%agent serve: {flag} needs a value; {USAGE}")
            inline = rest.pop(0)
        values[flag].append(inline)
    try:
        allow, deny = split_rules(values["--allow"]), split_rules(values["--deny"])
    except ValueError as exc:
        raise ServeUsageError(f"%agent serve: {exc}") from None
    mode = (values["--mode"] or ["default"])[-1]
    if mode not in MODES:
        raise ServeUsageError(f"%agent serve: --mode {mode!r} is not a mode; use one of {', '.join(MODES)}")
    token_file = values["--token-file"][-1] if values["--token-file"] else None
    return ServeOptions(
        port=_number("--port", values["--port"], int, 0, 65535) if values["--port"] else 0,
        token_file=Path(token_file).expanduser() if token_file else None,
        mode=mode,
        allow=allow,
        deny=deny,
        approval_timeout=_number("--approval-timeout", values["--approval-timeout"], float, 1, 86400)
        if values["--approval-timeout"]
        else APPROVAL_TIMEOUT,
    )


def _number(flag: str, given: list[str], kind: type[N], low: N, high: N) -> N:
    text = given[-1]
    try:
        value = kind(text)
    except ValueError:
        raise ServeUsageError(f"%agent serve: {flag} {text!r} is not a number; e.g. {flag} 8765") from None
    if not low <= value <= high:
        raise ServeUsageError(f"%agent serve: {flag} {text} is out of range ({low}–{high})")
    return value
