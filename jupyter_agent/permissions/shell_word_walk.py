"""The words of tree-sitter's bash syntax tree: a word node's value after quote removal (or a hole, None), and
the commands it substitutes, handed back to the statement walk (`shell_syntax.py`).

A word this does not model (arithmetic, a subscript, `${…}` beyond a name or a default) fails the walk closed;
the commands inside it are still found, so deny rules keep seeing them.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING

from .shell_words import decode_ansi_c, expands_unquoted, unescape_double_quoted, unescape_unquoted

if TYPE_CHECKING:
    from tree_sitter import Node

_EXPANSION_OPERATORS = frozenset({":-", "-", ":+", "+", ":=", "=", ":?", "?"})
#: A backtick and the backslashes before it: an even count (group 1) leaves it unescaped.
_BACKTICK = re.compile(r"(\\*)`")


def node_text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "surrogatepass")


class WordWalk(ABC):
    """The word half of the walk; the statement half (`statement`, `fail`) is the subclass's."""

    #: How many `` `…` `` substitutions the walk is inside: there, `` \` `` opens a nested one.
    backticks: int = 0

    @abstractmethod
    def statement(self, node: Node, *, redirected: bool) -> None: ...

    @abstractmethod
    def fail(self) -> None: ...

    def not_modelled(self, node: Node, *_: object) -> None:
        self.fail()
        self.words_in(node)

    def words_in(self, node: Node) -> None:
        """Find the commands inside a construct this walk does not model (for deny rules)."""
        for child in node.children:
            if child.type in ("command_substitution", "process_substitution"):
                self.word(child)
            elif child.type in ("command", "redirected_statement", "list", "pipeline", "subshell"):
                self.statement(child, redirected=True)
            else:
                self.words_in(child)

    def word(self, node: Node) -> str | None:
        """A word's value after quote removal, or None; the commands it substitutes are recorded."""
        value, unquoted = self.parts(node)
        if value is None or (unquoted and expands_unquoted(unquoted)):
            return None
        return value

    def parts(self, node: Node) -> tuple[str | None, str]:
        """(value or None, the unquoted raw text with quoted parts blanked) — for glob and brace checks."""
        if has_gaps(node) or node.is_error or node.is_missing:
            self.fail()
        if node.is_error or node.is_missing:
            self.words_in(node)
            return None, ""
        handler = WORDS.get(node.type)
        if handler is None:  # `$` alone, arithmetic, a subscript, anything else
            self.not_modelled(node)
            return None, "_"
        return handler(self, node)

    def plain(self, node: Node) -> tuple[str | None, str]:
        raw = node_text(node)
        if "\n" in raw:
            self.fail()  # tree-sitter glues `\x` after a newline to the line before; bash does not
        self.backticks_left(raw)
        return unescape_unquoted(raw), raw

    def backticks_left(self, text: str) -> None:
        """Fail on a backtick the parser left in text: unescaped, it is a substitution tree-sitter did not
        parse (`${x:=`id`}`); escaped inside `` `…` ``, bash runs it as a nested one (`` `echo \\`id\\`` ``)."""
        for match in _BACKTICK.finditer(text):
            if len(match.group(1)) % 2 == 0 or self.backticks:
                self.fail()
                return

    def quoted(self, node: Node) -> tuple[str | None, str]:
        text = node_text(node)
        if node.type == "raw_string":
            return text[1:-1], "_"
        if node.type == "ansi_c_string":
            return decode_ansi_c(text[2:-1]), "_"
        return self.double_quoted(node), "_"

    def concatenation(self, node: Node) -> tuple[str | None, str]:
        values: list[str] = []
        raws: list[str] = []
        known = True
        for child in node.children:
            value, raw = self.parts(child)
            raws.append(raw)
            if value is None:
                known = False
            else:
                values.append(value)
        return ("".join(values) if known else None), "".join(raws)

    def substitution(self, node: Node) -> tuple[str | None, str]:
        backticked = bool(node.children) and node.children[0].type == "`"
        self.backticks += backticked
        try:
            for child in node.children:
                if child.type not in ("$(", "`", ")", "<(", ">("):
                    self.statement(child, redirected=False)
        finally:
            self.backticks -= backticked
        return None, "_"

    def variable(self, node: Node) -> tuple[str | None, str]:
        if node.type == "expansion":
            self.expansion(node)
        return None, "_"

    def double_quoted(self, node: Node) -> str | None:
        pieces: list[str] = []
        known = True
        for child in node.children:
            if child.type == '"' or child.type == '$"':
                continue
            if child.type == "string_content":
                self.backticks_left(node_text(child))
                pieces.append(unescape_double_quoted(node_text(child)))
            else:
                value, _ = self.parts(child)
                if value is None:
                    known = False
                else:
                    pieces.append(value)
        return "".join(pieces) if known else None

    def expansion(self, node: Node) -> None:
        """`${name}` and `${name:-word}` (and `-`, `+`, `=`, `?` forms) are modelled; the rest is not."""
        inner = [c for c in node.children if c.type not in ("${", "}")]
        if not inner or inner[0].type != "variable_name":
            self.fail()
            self.words_in(node)
            return
        if len(inner) == 1:
            return
        if inner[1].type not in _EXPANSION_OPERATORS:
            self.fail()
            self.words_in(node)
            return
        for child in inner[2:]:
            self.word(child)


_Word = Callable[[WordWalk, "Node"], tuple[str | None, str]]
WORDS: dict[str, _Word] = {
    "word": WordWalk.plain,
    "number": WordWalk.plain,
    "raw_string": WordWalk.quoted,
    "ansi_c_string": WordWalk.quoted,
    "string": WordWalk.quoted,
    "translated_string": WordWalk.quoted,
    "concatenation": WordWalk.concatenation,
    "command_substitution": WordWalk.substitution,
    "process_substitution": WordWalk.substitution,
    "simple_expansion": WordWalk.variable,
    "expansion": WordWalk.variable,
}


def has_gaps(node: Node) -> bool:
    """Whether text between a node's children is more than blanks and line continuations."""
    data = node.text or b""
    start = node.start_byte
    position = start
    for child in node.children:
        gap = data[position - start : child.start_byte - start]
        if gap.replace(b"\\\n", b"").strip(b" \t\n"):
            return True
        position = child.end_byte
    return False


def has_expansion(node: Node) -> bool:
    if node.type in ("simple_expansion", "expansion", "command_substitution", "arithmetic_expansion",
                     "process_substitution"):  # fmt: skip
        return True
    return any(has_expansion(child) for child in node.children)
