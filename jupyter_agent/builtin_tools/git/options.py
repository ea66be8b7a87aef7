"""Which arguments each read-only git subcommand accepts: an allowlist, so an option that writes a file
(`--output`), runs a program (`--ext-diff`, `--textconv`, `--show-signature`) or reads one outside the roots
(`--contents`, `--no-index`) is refused by not being listed, including any git adds later.

An option's value is joined to it (`-n20`, `--since=2.weeks`, `-L10,40`): a separate value would be read as
a revision. Anything not starting with `-` is a revision (`HEAD~2`, `main..topic`, `HEAD:src/a.py`); paths
come in their own input, after `--`, so git never takes a revision for a path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ...base.errors import ToolError

GitCommand = Literal["status", "diff", "log", "show", "blame"]
GIT_COMMANDS: tuple[GitCommand, ...] = ("status", "diff", "log", "show", "blame")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: At most this many arguments (a longer list is not a hand-written command).
MAX_ARGS = 40


@dataclass(frozen=True, kw_only=True)
class Grammar:
    """What one subcommand accepts besides paths."""

    #: Options taken exactly as written.
    flags: frozenset[str]
    #: `--name=value` options, by `--name`.
    valued: frozenset[str] = frozenset()
    #: Short options whose value is joined to the letter (`-n20`), by `-n`.
    joined: frozenset[str] = frozenset()
    #: Whether revisions may be named.
    revisions: bool = True


_DIFF_FLAGS = _words(
    "-p -u --patch -s --no-patch --raw --stat --shortstat --numstat --summary --name-only "
    "--name-status --dirstat --compact-summary --patch-with-stat -w --ignore-all-space -b "
    "--ignore-space-change --ignore-space-at-eol --ignore-blank-lines --minimal --patience "
    "--histogram -W --function-context -R --no-renames --find-renames -M -C --find-copies "
    "--full-index --binary --abbrev --text -a --word-diff --no-prefix --relative "
    "--irreversible-delete -D --pickaxe-all --pickaxe-regex"
)
_DIFF_VALUED = _words(
    "--unified --stat --dirstat --word-diff --word-diff-regex --diff-filter --find-renames "
    "--find-copies --abbrev --relative --diff-algorithm --inter-hunk-context --anchored"
)
_DIFF_JOINED = frozenset({"-U", "-M", "-C", "-S", "-G", "-B", "-l"})

_LOG_FLAGS = _words(
    "--oneline --graph --decorate --no-decorate --reverse --first-parent --no-merges --merges --all "
    "--branches --tags --remotes --follow --abbrev-commit --no-abbrev-commit --date-order "
    "--author-date-order --topo-order -i --regexp-ignore-case --all-match --invert-grep -E "
    "--extended-regexp -F --fixed-strings --left-right --cherry-pick --boundary "
    "--simplify-by-decoration --source --full-history --no-walk -m --cc -c --parents --children "
    "--relative-date --mailmap --no-mailmap --no-notes"
)
_LOG_VALUED = _words(
    "--max-count --skip --since --after --until --before --author --committer --grep --format "
    "--pretty --date --decorate --branches --tags --remotes --min-parents --max-parents"
)

GRAMMARS: dict[GitCommand, Grammar] = {
    "status": Grammar(
        flags=_words(
            "-s --short -b --branch --porcelain --long --show-stash --ignored --ahead-behind "
            "--no-ahead-behind --renames --no-renames -z --null"
        ),
        valued=frozenset({"--porcelain", "--untracked-files", "--ignored", "--find-renames"}),
        joined=frozenset({"-u"}),
        revisions=False,
    ),
    "diff": Grammar(
        flags=_DIFF_FLAGS | {"--cached", "--staged", "--merge-base", "--exit-code", "--quiet"},
        valued=_DIFF_VALUED,
        joined=_DIFF_JOINED,
    ),
    "log": Grammar(
        flags=_DIFF_FLAGS | _LOG_FLAGS,
        valued=_DIFF_VALUED | _LOG_VALUED,
        joined=_DIFF_JOINED | {"-n"},
    ),
    "show": Grammar(
        flags=_DIFF_FLAGS
        | {"--oneline", "--abbrev-commit", "--no-abbrev-commit", "--decorate", "--no-notes"},
        valued=_DIFF_VALUED | {"--format", "--pretty", "--date", "--decorate"},
        joined=_DIFF_JOINED,
    ),
    "blame": Grammar(
        flags=_words(
            "-w -M -C -e --show-email -s -l -t -f --show-name -n --show-number -p --porcelain "
            "--line-porcelain --root --show-stats -c --incremental --minimal"
        ),
        valued=frozenset({"--date", "--abbrev"}),
        joined=frozenset({"-L", "-M", "-C"}),
    ),
}

#: `%G?`, `%GS`, `%GK`… make git verify signatures, which runs the configured gpg program.
_SIGNATURE_PLACEHOLDER = re.compile(r"%G")


def check_args(command: GitCommand, args: list[str]) -> tuple[list[str], list[str]]:
    """The call's options and revisions, each checked (`INVALID_ARGS` naming the first refused one)."""
    if len(args) > MAX_ARGS:
        raise ToolError("INVALID_ARGS", f"{len(args)} arguments given to git {command}; at most {MAX_ARGS}")
    grammar = GRAMMARS[command]
    options: list[str] = []
    revisions: list[str] = []
    for arg in args:
        if "\0" in arg or "\n" in arg:
            raise ToolError("INVALID_ARGS", f"git {command}: the argument {arg!r} holds a NUL or newline")
        if arg.startswith("-"):
            options.append(_checked_option(command, grammar, arg))
        elif not grammar.revisions:
            raise ToolError(
                "INVALID_ARGS",
                f"git status takes no revision ({arg!r}); put files or directories in paths",
            )
        else:
            revisions.append(arg)
    return options, revisions


def _checked_option(command: GitCommand, grammar: Grammar, arg: str) -> str:
    name, equals, value = arg.partition("=")
    if arg in grammar.flags or (equals and name in grammar.valued):
        if name in ("--format", "--pretty") and _SIGNATURE_PLACEHOLDER.search(value):
            raise ToolError(
                "INVALID_ARGS",
                f"git {command}: {arg!r} asks for signature checks (%G…), which run a program; drop them",
            )
        return arg
    if not arg.startswith("--") and len(arg) > 2 and arg[:2] in grammar.joined:
        return arg
    raise ToolError("INVALID_ARGS", f"git {command} does not take {arg!r} here; {_accepted(grammar)}")


def _accepted(grammar: Grammar) -> str:
    valued = sorted(f"{name}=…" for name in grammar.valued)
    joined = sorted(f"{letter}<value>" for letter in grammar.joined)
    listed = ", ".join([*sorted(grammar.flags), *valued, *joined])
    return (
        f"it accepts only options that read ({listed}), a value joined to its option (-n20, --since=2.weeks)"
    )
