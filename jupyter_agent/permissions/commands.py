"""A shell command as the simple commands it runs, so rules judge each program and not the line as a whole.

`git status; rm -rf ~` is two commands; a rule written for the first must not let the second ride along, and a
deny rule written for the second must not be dodged by putting the first in front. The line is parsed by
tree-sitter's bash grammar (`shell_syntax`): every simple command is found, in lists and pipelines, subshells,
groups, loops, `if`/`case` bodies, function bodies, command and process substitutions, heredoc bodies. Words
are seen after bash's quote removal (`'r'm`, `$'\\x72m'` and `rm` are the same word); a word whose value only
running tells (`$x`, `$(cmd)`, `*.py`, `{a,b}`) is a *hole*.

Wrappers are seen through: `env`, `nice`, `nohup`, `time`, `timeout`, `stdbuf`, `setsid`, `ionice`, `command`,
`builtin`, `exec`, `xargs`, `sudo`, `doas` (the wrapped command is a subcommand of its own, with its options
skipped; an option this module does not know makes the wrapped command a hole), and `sh`/`bash`/`dash`/`zsh`/
`ksh -c SCRIPT`, `eval` and `env -S` (the script is parsed in turn).

Fail closed — what an allow rule can match (`CommandWords.allowable`, `ParsedCommand.parsed`):
- a line with a syntax error, or a construct the walk does not model, matches no allow rule;
- a subcommand with a hole matches an allow rule only if the rule accepts *every* value the hole could take
  (`git status*` accepts `git status $x`; `git diff` does not);
- a subcommand that redirects, has `VAR=value` in front, declares variables, or is a builtin that evaluates its
  arguments as code (`eval`, `source`, `trap`, `printf -v` …) matches no allow rule;
- a line that assigns an upper-case (or `*_proxy`) variable outside a command matches no allow rule.
Deny rules match if any word could: a subcommand whose name is a hole matches every deny rule; one with a hole
later matches a deny rule some value of the hole would satisfy; an unparsable line is also cut at every word.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from functools import lru_cache

from .shell_syntax import SimpleCommand, analyse

#: Builtins that run their arguments (or a file) as code, or change how later commands resolve.
_EVALUATING = frozenset(
    {
        "eval", "source", ".", "trap", "alias", "unalias", "shopt", "enable", "bind", "complete", "compgen",
        "fc", "hash", "let", "declare", "typeset", "local", "export", "readonly", "unset", "read", "mapfile",
        "readarray", "set", "coproc", "history", "caller",
    }
)  # fmt: skip
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "/bin/sh", "/bin/bash", "/usr/bin/bash"})
#: Recursion of `bash -c "bash -c '…'"` and `eval`: deeper than this is not followed (the inner is a hole).
_MAX_DEPTH = 4
_HOLE_TEXT = "…"
#: Words per piece of an unparsable line (each piece then reads as a prefix): keeps a huge line linear.
_SUFFIX_WORDS = 64


@dataclass(frozen=True)
class CommandWords:
    """One simple command. `text` is what rules see: its words, quoted where the shell would need it."""

    words: tuple[str | None, ...]
    redirected: bool = False
    #: Allow rules never match it (a prefix assignment, an evaluating builtin, a wrapper option not known).
    opaque: bool = False

    @property
    def text(self) -> str:
        return " ".join(_HOLE_TEXT if w is None else _quote(w) for w in self.words)

    @property
    def known_prefix(self) -> tuple[str, ...]:
        """The words before the first hole."""
        known: list[str] = []
        for word in self.words:
            if word is None:
                break
            known.append(word)
        return tuple(known)

    @property
    def complete(self) -> bool:
        return None not in self.words

    @property
    def allowable(self) -> bool:
        return not self.redirected and not self.opaque and bool(self.words) and self.words[0] is not None

    def forms(self) -> tuple[tuple[str, bool], ...]:
        """(text, complete) readings for deny rules: quoted as the shell needs, and plainly joined; an
        incomplete reading is the known prefix followed by a space (a hole comes next)."""
        prefix = self.known_prefix
        complete = self.complete
        quoted = " ".join(_quote(w) for w in prefix)
        plain = " ".join(prefix)
        if not complete:
            quoted, plain = (quoted + " " if prefix else ""), (plain + " " if prefix else "")
        return tuple(dict.fromkeys(((quoted, complete), (plain, complete))))


@dataclass(frozen=True)
class ParsedCommand:
    """The whole command as written (stripped) and the subcommands it runs."""

    text: str
    subcommands: tuple[CommandWords, ...]
    #: False when the parser reported an error or the walk met a construct it does not model: no allow rule
    #: matches; `subcommands` then also holds every suffix of the line's words, for deny rules.
    parsed: bool = True


def _quote(word: str) -> str:
    return shlex.quote(word) if word else "''"


def _wrapped(outer: SimpleCommand, depth: int) -> tuple[list[CommandWords], bool]:
    """What a wrapper command runs: (inner subcommands, fully understood). The wrapped command inherits the
    wrapper's redirections and variables."""
    from .shell_wrappers import inner_command

    words = outer.words
    name = words[0]
    if name is None:
        return [], True
    if (name in _SHELLS or name == "eval") or (name == "env" and "-S" in words):
        runs_script, script = _script_argument(words)
        if not runs_script:
            return [], True
        if script is None or depth >= _MAX_DEPTH:
            return [CommandWords((None,), opaque=True)], True
        inner = _split(script, depth + 1)
        return [_inherit(sub, outer) for sub in inner.subcommands], inner.parsed
    wrapped = inner_command(words)
    if wrapped is None:
        return [], True
    rest, assigns = wrapped
    if not rest:
        return [CommandWords((None,), opaque=True)], True  # options not understood: it could run anything
    return _expand(SimpleCommand(tuple(rest), outer.redirected, outer.assigns or assigns), depth)


def _inherit(sub: CommandWords, outer: SimpleCommand) -> CommandWords:
    return CommandWords(sub.words, sub.redirected or outer.redirected, sub.opaque or outer.assigns)


def _script_argument(words: tuple[str | None, ...]) -> tuple[bool, str | None]:
    """(whether it runs a script given as words, the script or None when it is a hole) for `bash -c SCRIPT`,
    `eval A B`, `env -S 'A B'`; `bash script.sh` runs a file, which rules cannot see into."""
    name = words[0]
    if name == "eval":
        args = words[1:]
        return True, (None if None in args else " ".join(w for w in args if w is not None))
    flag = "-S" if name == "env" else "-c"
    for index, word in enumerate(words[1:], start=1):
        if word is None:
            return True, None
        short_with_c = flag == "-c" and word.startswith("-") and not word.startswith("--") and "c" in word
        if word == flag or short_with_c:
            return True, (words[index + 1] if index + 1 < len(words) else None)
    return False, None


def _expand(command: SimpleCommand, depth: int) -> tuple[list[CommandWords], bool]:
    """The subcommand and what it wraps; False when a wrapped script was not fully understood."""
    words = command.words
    if not words:
        return [], True
    name = words[0]
    opaque = command.assigns or name in _EVALUATING or (name == "printf" and "-v" in words)
    inner, understood = _wrapped(command, depth)
    return [CommandWords(words, command.redirected, opaque), *inner], understood


def _suffixes(text: str) -> list[CommandWords]:
    """Every run of words from each word to the end, quotes stripped: what deny rules see of a line that
    did not parse (a word that could start a command)."""
    text = text.replace("\\\n", "")
    for separator in ";&|()<>`\n{}":
        text = text.replace(separator, " ")
    text = text.replace("$(", " ")
    tokens = [t.replace("'", "").replace('"', "").replace("\\", "").lstrip("$") for t in text.split()]
    tokens = [t for t in tokens if t]
    pieces: list[CommandWords] = []
    for start in range(len(tokens)):
        words: tuple[str | None, ...] = tuple(tokens[start : start + _SUFFIX_WORDS])
        if start + _SUFFIX_WORDS < len(tokens):
            words += (None,)  # more words follow: read as a prefix
        pieces.append(CommandWords(words, opaque=True))
    return pieces


def _split(command: str, depth: int) -> ParsedCommand:
    analysis = analyse(command)
    found: list[CommandWords] = []
    understood = analysis.understood and not analysis.risky_assignment
    for simple in analysis.commands:
        subcommands, inner_understood = _expand(simple, depth)
        found.extend(subcommands)
        understood = understood and inner_understood
    if not analysis.understood:
        found.extend(_suffixes(command))
    return ParsedCommand(command.strip(), tuple(dict.fromkeys(found)), parsed=understood)


@lru_cache(maxsize=1024)
def split_command(command: str) -> ParsedCommand:
    """The subcommands `command` runs, in order of appearance (wrapped commands after their wrapper)."""
    return _split(command, 0)
