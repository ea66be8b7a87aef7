"""The value of one shell word as bash would see it after quote removal, or `None` when only running it tells.

A word is known when it is made of plain text, `'…'`, `$'…'` (ANSI-C, decoded here), `"…"` without expansions,
or a concatenation of those. It is unknown (`None`, a *hole*) when it holds a parameter expansion, a command
substitution, or an unquoted glob or brace pattern that bash would expand into file names or several words
(`*.py`, `{-rf,x}`) — the rules cannot know what it becomes.
"""

from __future__ import annotations

import re

#: Unquoted characters that make bash expand a word into file names.
_GLOB = re.compile(r"(?<!\\)(?:\\\\)*[*?\[]")
#: `{a,b}` or `{1..3}` in unquoted text: brace expansion turns one word into several.
_BRACES = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")

_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_ANSI_ESCAPE = re.compile(
    r"\\(?:(?P<simple>[abeEfnrtv\\'\"?])|(?P<octal>[0-7]{1,3})|x(?P<hex>[0-9A-Fa-f]{1,2})"
    r"|u(?P<u4>[0-9A-Fa-f]{1,4})|U(?P<u8>[0-9A-Fa-f]{1,8})|c(?P<control>.)|(?P<other>.))",
    re.DOTALL,
)


def _ansi_char(match: re.Match[str]) -> str:
    groups = match.groupdict()
    if groups["simple"] is not None:
        return _SIMPLE_ESCAPES[groups["simple"]]
    if groups["octal"] is not None:
        return chr(int(groups["octal"], 8) & 0xFF)
    if groups["hex"] is not None:
        return chr(int(groups["hex"], 16))
    code = groups["u4"] or groups["u8"]
    if code is not None:
        value = int(code, 16)
        return chr(value) if value <= 0x10FFFF else "\ufffd"
    if groups["control"] is not None:
        return chr(ord(groups["control"].upper()) & 0x1F)
    return "\\" + groups["other"]  # an unknown escape stays as written, backslash included


def decode_ansi_c(body: str) -> str:
    """The text of `$'body'`: backslash escapes decoded as bash decodes them (`\\'` is a quote, not an end).

    A NUL (`\\0`, `\\x00`) ends the string in bash; so it does here."""
    decoded = _ANSI_ESCAPE.sub(_ansi_char, body)
    return decoded.split("\0", 1)[0]


def unescape_unquoted(text: str) -> str:
    """Unquoted text: `\\x` is `x`, a backslash-newline joins lines."""
    return re.sub(r"\\(.)", r"\1", text.replace("\\\n", ""), flags=re.DOTALL)


def unescape_double_quoted(text: str) -> str:
    """Text inside `"…"`: only `\\$`, `` \\` ``, `\\"`, `\\\\` and backslash-newline are escapes."""
    return re.sub(r'\\([$`"\\])', r"\1", text.replace("\\\n", ""))


def expands_unquoted(text: str) -> bool:
    """Whether unquoted `text` holds a glob or a brace expansion (bash turns it into other words)."""
    return bool(_GLOB.search(text) or _BRACES.search(text.replace("\\{", "").replace("\\}", "")))
