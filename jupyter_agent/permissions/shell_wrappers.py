"""Commands that run another command (`nice -n 5 rm x` runs `rm x`): the wrapped command, options skipped.

Each wrapper's options are listed with whether they take a value; an option not listed, or a hole where an
option or its value should be, means the wrapped command cannot be told apart: the caller treats it as a
command whose name is a hole (deny rules match it, allow rules do not). `xargs` adds words read from its input
(a hole at the end); `env` and `sudo` may set variables, which makes the wrapped command opaque to allow rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class _Wrapper:
    #: Options without a value; options that take one (as the next word, or attached: `-n5`, `--signal=KILL`).
    flags: frozenset[str] = frozenset()
    valued: frozenset[str] = frozenset()
    #: Positional words before the command (`timeout DURATION cmd`).
    positionals: int = 0
    #: `NAME=value` words may come before the command.
    assignments: bool = False
    #: Words from the input are appended to the command.
    appends_input: bool = False
    #: A bare `-N` (nice -10) is an option.
    numeric_option: bool = False


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


WRAPPERS: dict[str, _Wrapper] = {
    "env": _Wrapper(
        flags=_set("-i - -0 --null --ignore-environment -v --debug"),
        valued=_set("-u --unset -C --chdir"),
        assignments=True,
    ),
    "nice": _Wrapper(valued=_set("-n --adjustment"), numeric_option=True),
    "nohup": _Wrapper(),
    "time": _Wrapper(flags=_set("-p")),
    "timeout": _Wrapper(
        flags=_set("--preserve-status --foreground -v --verbose"),
        valued=_set("-s --signal -k --kill-after"),
        positionals=1,
    ),
    "stdbuf": _Wrapper(valued=_set("-i -o -e --input --output --error")),
    "setsid": _Wrapper(flags=_set("-c -f -w --ctty --fork --wait")),
    "ionice": _Wrapper(flags=_set("-t --ignore"), valued=_set("-c -n --class --classdata")),
    "command": _Wrapper(flags=_set("-p -v -V")),
    "builtin": _Wrapper(),
    "exec": _Wrapper(flags=_set("-c -l"), valued=_set("-a")),
    "xargs": _Wrapper(
        flags=_set("-0 -r -t -p -x -o --null --no-run-if-empty --verbose --interactive --exit --open-tty"),
        valued=_set(
            "-a -d -E -I -L -n -P -s --arg-file --delimiter --eof --replace --max-lines --max-args "
            "--max-procs --max-chars"
        ),
        appends_input=True,
    ),
    "sudo": _Wrapper(
        flags=_set(
            "-A -b -E -H -K -k -n -P -S -V -v --askpass --background --preserve-env --set-home "
            "--non-interactive --stdin --"
        ),
        valued=_set(
            "-u -g -C -D -h -p -r -t -T -U --user --group --close-from --chdir --host --prompt "
            "--role --type --command-timeout --other-user"
        ),
        assignments=True,
    ),
    "doas": _Wrapper(flags=_set("-n -s"), valued=_set("-u -C")),
}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_NUMBER = re.compile(r"-\d+")


def _option_value_attached(word: str, wrapper: _Wrapper) -> bool:
    """`--signal=KILL`, `-n5`: an option and its value in one word."""
    if word.startswith("--"):
        return word.split("=", 1)[0] in wrapper.valued and "=" in word
    return any(word.startswith(v) and len(word) > len(v) for v in wrapper.valued if not v.startswith("--"))


def inner_command(words: tuple[str | None, ...]) -> tuple[list[str | None], bool] | None:
    """(the wrapped command's words, whether variables were set for it) — `[]` words when the options are not
    understood; None when `words` is not a wrapper or wraps nothing."""
    name = words[0]
    wrapper = WRAPPERS.get(name or "")
    if wrapper is None:
        return None
    start = _command_start(words, wrapper)
    if start is None:
        return [], wrapper.assignments and any(_ASSIGNMENT.match(w or "") for w in words[1:])
    index, assigns = start
    rest: list[str | None] = list(words[index:])
    if not rest:
        return None
    if wrapper.appends_input:
        options = [w or "" for w in words[1:index]]
        if any(w.startswith(("-I", "-i", "--replace")) for w in options):
            rest = rest[:1]  # -I puts the input anywhere in the command
        rest.append(None)
    return rest, assigns


def _command_start(words: tuple[str | None, ...], wrapper: _Wrapper) -> tuple[int, bool] | None:
    """(where the wrapped command starts, whether variables are set) — None when an option is not known or a
    hole stands where an option or the command should be."""
    index, positionals, assigns = 1, wrapper.positionals, False
    while index < len(words):
        word = words[index]
        if word is None:
            return None
        if word == "--" and "--" not in wrapper.flags:
            return index + 1, assigns
        if wrapper.assignments and _ASSIGNMENT.match(word):
            assigns = True
        elif word in wrapper.valued:
            index += 1
        elif word.startswith("-") and word != "-":
            known = word in wrapper.flags or (wrapper.numeric_option and _NUMBER.fullmatch(word))
            if not known and not _option_value_attached(word, wrapper):
                return None
        elif positionals:
            positionals -= 1
        else:
            break
        index += 1
    return index, assigns
