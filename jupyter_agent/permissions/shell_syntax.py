"""A bash command line as the simple commands it can run, read from tree-sitter's bash syntax tree.

Every `command` node becomes a `SimpleCommand` wherever it sits: in a list or pipeline, a subshell, `{ …; }`,
an `if`/`while`/`until`/`for`/`case` body, a function body (whether or not it is called), a command or process
substitution (in a word, a string, an assignment, a redirection target, a heredoc body). Words are evaluated
(`shell_word_walk.py`, `shell_words.py`): known text after quote removal, or a hole.

Fail closed: the walk records `understood = False` for a syntax error the parser reports or recovers from, for
any node type it does not know, and for constructs whose effect it does not model — arithmetic (`$((…))`,
`((…))`, C-style `for`, which evaluate variables' *contents* as code: `x='a[$(id)]'; (( x ))` runs `id`),
`${…}` beyond a plain name or a default value, an array subscript, a test (`[[ … ]]`, `[ … ]`) over an
expansion, a backtick inside an unquoted heredoc (tree-sitter does not parse it). The commands found are still
returned, so deny rules keep seeing them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from .shell_word_walk import WordWalk, has_expansion, has_gaps, node_text

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

#: Nodes that only hold other statements: walked, nothing of their own.
_CONTAINERS = frozenset(
    {
        "program",
        "list",
        "pipeline",
        "subshell",
        "negated_command",
        "do_group",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
        "function_definition",
        "case_statement",
        "case_item",
        "redirected_statement",
        "compound_statement",
        "for_statement",
        "variable_assignments",
    }
)
#: Tokens and nodes that carry no command: separators, keywords, comments, names.
_INERT = frozenset(
    {
        ";", ";;", ";&", ";;&", "&", "&&", "||", "|", "|&", "(", ")", "{", "}", "\n",
        "if", "then", "fi", "elif", "else", "do", "done", "while", "until", "for", "in", "case", "esac",
        "function", "!", "comment", "heredoc_start", "heredoc_end", "=", "+=",
    }
)  # fmt: skip
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
#: Lower-case names only: upper-case ones are what programs and bash itself read (PATH, IFS, PS4, LD_PRELOAD,
#: GIT_*), so assigning one changes what a later, allowed command does.
_PLAIN_VARIABLE = re.compile(r"[a-z_][a-z0-9_]*")
_PROXY_VARIABLE = re.compile(r".*_proxy")
#: A backslash-newline inside a word: bash joins the two halves into one word, tree-sitter splits them.
_CONTINUATION_IN_WORD = re.compile(r"(?<=\S)\\\n(?=\S)")
#: Nodes whose children leave text out by design (a heredoc's body follows its line).
_GAPS_EXPECTED = frozenset({"redirected_statement", "heredoc_redirect", "heredoc_body"})


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command: its words (None = a hole), and what about it an allow rule must not look past."""

    words: tuple[str | None, ...]
    #: It reads or writes a file through a redirection (or its group does).
    redirected: bool = False
    #: `VAR=value cmd`, a declaration (`export`, `declare`…): it changes the environment of what runs.
    assigns: bool = False


@dataclass
class Analysis:
    commands: list[SimpleCommand] = field(default_factory=list[SimpleCommand])
    understood: bool = True
    #: Variables assigned outside a command (`x=1`, `for x in …`): a risky name makes the line not allowable.
    risky_assignment: bool = False


@cache
def _parser() -> Parser:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def analyse(script: str) -> Analysis:
    """The simple commands of `script`, and whether the walk understood all of it."""
    tree = _parser().parse(script.encode("utf-8", "surrogatepass"))
    walker = _Walker()
    if tree.root_node.has_error or _CONTINUATION_IN_WORD.search(script):
        walker.result.understood = False
    walker.statement(tree.root_node, redirected=False)
    return walker.result


class _Walker(WordWalk):
    def __init__(self) -> None:
        self.result = Analysis()

    def fail(self) -> None:
        self.result.understood = False

    # -- statements ------------------------------------------------------------------------------------

    def statement(self, node: Node, *, redirected: bool) -> None:
        kind = node.type
        if kind not in _GAPS_EXPECTED and has_gaps(node):
            self.fail()  # text between the parts the parser returned: something it dropped (`\ ` alone)
        if node.is_error or node.is_missing:
            self.fail()
            self.children(node, redirected=redirected)
            return
        handler = _STATEMENTS.get(kind)
        if handler is not None:
            handler(self, node, redirected)
        elif kind in _CONTAINERS:
            self.children(node, redirected=redirected)
        elif kind in _REDIRECTS:
            self.redirect(node)
        elif kind not in _INERT:
            self.not_modelled(node)  # c-style for, arithmetic, anything new

    def redirected_statement(self, node: Node, redirected: bool) -> None:
        for child in node.children:
            if child.type in _REDIRECTS:
                self.redirect(child)
            else:
                self.statement(child, redirected=True)

    def compound(self, node: Node, redirected: bool) -> None:
        if node.child_count and node.children[0].type == "((":
            self.not_modelled(node)  # arithmetic evaluates variables' contents as code
        else:
            self.children(node, redirected=redirected)

    def function(self, node: Node, redirected: bool) -> None:
        """`f() { …; } > out`: the redirection applies to the body each time `f` runs."""
        redirected = redirected or any(c.type in _REDIRECTS for c in node.children)
        self.children(node, redirected=redirected, skip_first_word=True)

    def children(self, node: Node, *, redirected: bool, skip_first_word: bool = False) -> None:
        for index, child in enumerate(node.children):
            if skip_first_word and index == 0 and child.type == "word":
                continue  # a function's name
            self.statement(child, redirected=redirected)

    def command(self, node: Node, redirected: bool) -> None:
        if any(has_gaps(c) for c in node.children if c.type == "command_name"):
            self.fail()
        words: list[str | None] = []
        assigns = False
        for child in node.children:
            if child.type == "variable_assignment":
                assigns = True
                self.assignment_value(child)
            elif child.type == "command_name":
                for part in child.children:
                    words.append(self.word(part))
            elif child.type in _REDIRECTS:
                redirected = True
                self.redirect(child)
            elif child.type in _INERT:
                continue
            else:
                words.append(self.word(child))
        self.result.commands.append(SimpleCommand(tuple(words), redirected, assigns))

    def assignment_statement(self, node: Node, redirected: bool) -> None:
        if node.type == "variable_assignment":
            self.check_name(node)
            self.assignment_value(node)
            return
        words: list[str | None] = []  # `export A=1`, `declare -x B`, `unset C`: a command that assigns
        for child in node.children:
            if child.type == "variable_assignment":
                name = child.child_by_field_name("name")
                words.append(node_text(name) + "=…" if name is not None else None)
                self.assignment_value(child)
            elif child.type in _INERT:
                continue
            elif child.child_count == 0 and child.type != "word":
                words.append(node_text(child))  # the keyword itself: declare, export, local, unset …
            else:
                words.append(self.word(child))
        self.result.commands.append(SimpleCommand(tuple(words), redirected, assigns=True))

    def check_name(self, assignment: Node) -> None:
        name = assignment.child_by_field_name("name")
        if name is None or name.type != "variable_name":
            self.fail()  # `a[$(x)]=1`: the subscript is arithmetic
            if name is not None:
                self.words_in(name)
            return
        text = node_text(name)
        if not _PLAIN_VARIABLE.fullmatch(text) or _PROXY_VARIABLE.fullmatch(text):
            self.result.risky_assignment = True

    def assignment_value(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        if name is not None and name.type != "variable_name":
            self.fail()
            self.words_in(name)
        value = node.child_by_field_name("value")
        if value is not None:
            if value.type == "array":
                for item in value.children:
                    if item.type not in ("(", ")"):
                        self.word(item)
            else:
                self.word(value)

    def for_statement(self, node: Node, redirected: bool) -> None:
        for child in node.children:
            if child.type == "variable_name":
                text = node_text(child)
                if not _PLAIN_VARIABLE.fullmatch(text) or _PROXY_VARIABLE.fullmatch(text):
                    self.result.risky_assignment = True
            elif child.type == "do_group":
                self.statement(child, redirected=redirected)
            elif child.type not in _INERT:
                self.word(child)

    def case_part(self, node: Node, redirected: bool) -> None:
        body_started = False
        for child in node.children:
            if child.type == ")" and node.type == "case_item":
                body_started = True
            elif node.type == "case_statement" and child.type != "case_item":
                if child.type not in _INERT:
                    self.word(child)  # the subject: `case $(cmd) in`
            elif node.type == "case_item" and not body_started:
                if child.type == "extglob_pattern":
                    continue  # `*)`, `a|b)`: a pattern runs nothing
                if child.type not in _INERT:
                    self.word(child)  # a pattern: it may hold a substitution
            else:
                self.statement(child, redirected=redirected)

    def test_command(self, node: Node, redirected: bool) -> None:
        """`[[ … ]]` and `[ … ]`: a command of its own; over an expansion it is arithmetic-prone: not modelled."""
        if has_expansion(node):
            self.fail()
            self.words_in(node)
        words = tuple(node_text(node).split())
        self.result.commands.append(SimpleCommand(words, redirected))

    def redirect(self, node: Node) -> None:
        quoted_heredoc = False
        for child in node.children:
            if child.type == "heredoc_start":
                quoted_heredoc = any(q in node_text(child) for q in "'\"\\")
            elif child.type == "heredoc_body":
                self.heredoc_body(child, quoted=quoted_heredoc)
            elif child.type in ("word", "string", "raw_string", "concatenation", "simple_expansion", "expansion",
                                "command_substitution", "process_substitution", "ansi_c_string", "number"):  # fmt: skip
                self.word(child)
            elif child.type in _CONTAINERS or child.type in ("command", "redirected_statement"):
                self.statement(child, redirected=True)  # commands after a heredoc start on its line
            elif child.child_count:
                self.words_in(child)

    def heredoc_body(self, node: Node, *, quoted: bool) -> None:
        if quoted:
            return  # `<<'EOF'`: the body is plain data
        if not node.children and any(c in node_text(node) for c in "`$"):
            self.fail()  # a body the parser left as one piece of text, with expansions in it
        for child in node.children:
            if child.type == "heredoc_content" and "`" in node_text(child):
                self.fail()  # tree-sitter leaves backticks inside a heredoc unparsed
            elif child.type != "heredoc_content":
                self.word(child)


_Statement = Callable[[_Walker, "Node", bool], None]
_STATEMENTS: dict[str, _Statement] = {
    "command": _Walker.command,
    "redirected_statement": _Walker.redirected_statement,
    "variable_assignment": _Walker.assignment_statement,
    "declaration_command": _Walker.assignment_statement,
    "unset_command": _Walker.assignment_statement,
    "for_statement": _Walker.for_statement,
    "case_statement": _Walker.case_part,
    "case_item": _Walker.case_part,
    "function_definition": _Walker.function,
    "compound_statement": _Walker.compound,
    "test_command": _Walker.test_command,
}
