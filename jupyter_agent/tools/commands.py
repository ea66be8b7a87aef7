"""A shell command as the subcommands it runs, so rules judge each program and not the line as a whole.

`git status; rm -rf ~` is two commands; a rule written for the first must not let the second ride along, and a
deny rule written for the second must not be dodged by putting the first in front. The splitter knows what the
shell knows about where one command ends: `;`, `&&`, `||`, `|`, `|&`, `&`, newlines, subshell parentheses,
and it lifts the commands inside `$( … )`, backticks and `<( … )` out as commands of their own (also inside
double quotes, where the shell still runs them). Quotes and backslashes protect separators; comments are
dropped; whitespace outside quotes is folded to one space. Each subcommand loses its leading `VAR=value`
assignments and shell keywords (`if`, `then`, `do`, `!`, `{`, `time` …), so ` rm x`, `\\nrm x`, `A=1 rm x` and
`if true; then rm x; fi` all show `rm x`.

What it cannot see is said in the README: a program run under another name (`/bin/rm`, `'r'm`), or started
by a program (`xargs rm`, `env rm`, `sh -c 'rm …'`, `find -exec`), is not the word a prefix rule looks at.

A command the splitter cannot follow (an open quote, an unclosed `$(`, arithmetic `$((`) is `parsed=False`:
no allow rule matches it, and its pieces are cut at every separator character, quotes or not, so that a deny
rule matching any plausible piece still refuses it.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import lru_cache

#: Words that start a compound command or negate one: the command proper comes after them.
_KEYWORDS = frozenset({"!", "{", "}", "(", ")", "if", "then", "elif", "else", "do", "while", "until", "time"})
#: Words that only close a compound command: a piece made of them runs nothing.
_CLOSERS = frozenset({"fi", "done", "esac", "}", "{", "!", "then", "do", "else"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_NAIVE_SEPARATORS = re.compile(r"[;&|\n()`<>]|\$\(")


@dataclass(frozen=True)
class Subcommand:
    """One simple command: `text` as rules see it, and whether it redirects input or output (`>`, `<`)."""

    text: str
    redirected: bool = False

    def forms(self) -> tuple[str, ...]:
        """The text, and the text with the shell's quoting removed (`'rm' -rf` reads `rm -rf`), for deny rules."""
        try:
            unquoted = " ".join(shlex.split(self.text))
        except ValueError:
            return (self.text,)
        return (self.text,) if unquoted == self.text else (self.text, unquoted)


@dataclass(frozen=True)
class ParsedCommand:
    """The whole command as written (stripped) and the subcommands it runs."""

    text: str
    subcommands: tuple[Subcommand, ...]
    #: False when the splitter could not follow the quoting: the subcommands are then a guess.
    parsed: bool = True


class _Unparsable(Exception):
    pass


class _Scanner:
    """A single left-to-right pass; `scan(stop)` returns at `stop` (a `)` closing `$(`) or at the end."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.pieces: list[Subcommand] = []

    def scan(self, stop: str | None = None) -> None:
        text = self.text
        current: list[str] = []
        redirected = False

        def flush() -> None:
            nonlocal current, redirected
            self._add("".join(current), redirected)
            current, redirected = [], False

        while self.i < len(text):
            c = text[self.i]
            if stop is not None and c == stop:
                self.i += 1
                flush()
                return
            if c == "\\":
                if text.startswith("\\\n", self.i):  # a line continuation joins the lines
                    self.i += 2
                    continue
                current.append(text[self.i : self.i + 2])
                self.i += 2
            elif c == "'":
                end = text.find("'", self.i + 1)
                if end < 0:
                    raise _Unparsable
                current.append(text[self.i : end + 1])
                self.i = end + 1
            elif c == '"':
                current.append(self._double_quoted())
            elif c == "`":
                current.append(self._backticks())
            elif text.startswith("$((", self.i):
                raise _Unparsable  # arithmetic can hide commands; not worth following
            elif text.startswith("$(", self.i):
                current.append(self._substitution(2))
            elif c == "#" and (not current or current[-1] in (" ", "\t")):
                end = text.find("\n", self.i)
                self.i = len(text) if end < 0 else end
            elif c in "<>":
                redirected = True
                if text.startswith("(", self.i + 1):  # process substitution: <(cmd), >(cmd)
                    current.append(self._substitution(2))
                    continue
                current.append(c)
                self.i += 1
                if self.i < len(text) and text[self.i] in "&|>":
                    current.append(text[self.i])
                    self.i += 1
            elif c == "&" and text.startswith("&>", self.i):
                redirected = True
                current.append("&>")
                self.i += 2
            elif c in ";&|\n()":
                flush()
                self.i += 1
            elif c in " \t\r":
                if current and current[-1] != " ":
                    current.append(" ")
                self.i += 1
            else:
                current.append(c)
                self.i += 1
        if stop is not None:
            raise _Unparsable  # an unclosed $( or <(
        flush()

    def _double_quoted(self) -> str:
        """`"…"` as written; commands substituted inside it still run, so they become pieces too."""
        text = self.text
        start = self.i
        self.i += 1
        while self.i < len(text):
            c = text[self.i]
            if c == "\\":
                self.i += 2
            elif c == '"':
                self.i += 1
                return text[start : self.i]
            elif c == "`":
                self._backticks()
            elif text.startswith("$((", self.i):
                raise _Unparsable
            elif text.startswith("$(", self.i):
                self._substitution(2)
            else:
                self.i += 1
        raise _Unparsable

    def _backticks(self) -> str:
        text = self.text
        start = self.i
        end = self.i + 1
        while end < len(text) and text[end] != "`":
            end += 2 if text[end] == "\\" else 1
        if end >= len(text):
            raise _Unparsable
        inner = _Scanner(text[start + 1 : end].replace("\\`", "`"))
        inner.scan()
        self.pieces.extend(inner.pieces)
        self.i = end + 1
        return text[start : self.i]

    def _substitution(self, opener: int) -> str:
        """`$(…)` or `<(…)`: the inside is scanned as commands of its own; the outside keeps the text."""
        start = self.i
        self.i += opener
        self.scan(stop=")")
        return self.text[start : self.i]

    def _add(self, raw: str, redirected: bool) -> None:
        text = _strip_prefixes(raw.strip())
        if text and text not in _CLOSERS:
            self.pieces.append(Subcommand(text, redirected))


def _first_word_end(text: str) -> int:
    """Where the first shell word ends (quotes, backticks, `$( )` and backslashes respected), or len(text)."""
    i = 0
    quote = ""
    depth = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote != "'":
                i += 1
        elif c in "'\"`":
            quote = c
        elif c == "\\":
            i += 1
        elif text.startswith("$(", i):
            depth += 1
            i += 1
        elif c == ")" and depth:
            depth -= 1
        elif c == " " and not depth:
            return i
        i += 1
    return len(text)


def _strip_prefixes(text: str) -> str:
    """Drop leading `VAR=value` assignments and keywords: `A=1 B="x y" if ! rm x` → `rm x`."""
    while text:
        end = _first_word_end(text)
        word = text[:end]
        if word in _KEYWORDS or _ASSIGNMENT.match(word):
            text = text[end:].lstrip()
        else:
            break
    return text


def _naive_pieces(text: str) -> tuple[Subcommand, ...]:
    """For a command the splitter could not follow: cut at every separator character, quoted or not."""
    found: list[Subcommand] = []
    for raw in [text, *_NAIVE_SEPARATORS.split(text)]:
        piece = _strip_prefixes(" ".join(raw.split()).strip(" '\""))
        if piece and piece not in _CLOSERS:
            found.append(Subcommand(piece, redirected=True))
    return tuple(found)


@lru_cache(maxsize=1024)
def split_command(command: str) -> ParsedCommand:
    """The subcommands `command` runs, in order (substituted commands after the command that holds them)."""
    text = command.strip()
    scanner = _Scanner(command)
    try:
        scanner.scan()
    except _Unparsable:
        return ParsedCommand(text, _naive_pieces(command), parsed=False)
    return ParsedCommand(text, tuple(scanner.pieces))
