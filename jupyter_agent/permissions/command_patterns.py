"""A `Bash(...)` rule pattern as a small automaton, so it can answer three questions about a subcommand:

- `matches(text)`: the whole text matches (anchored at both ends);
- `could_match(prefix)`: *some* text that starts with `prefix` matches — how a deny rule reads a command with
  a hole after `prefix` (`rm $x` could be `rm -rf /`);
- `matches_all(prefix)`: *every* text that starts with `prefix` matches — how an allow rule reads a command with
  a hole after `prefix` (`git status*` accepts `git status $x`, `git diff` does not).

`*` matches anything (also `/` and spaces), `?` one character, `\\*` `\\?` `\\\\` are literal; `prefix:*` is
`prefix` alone or followed by whitespace and anything. Matching is a set-of-states simulation: linear in the
text for a given pattern, no backtracking.
"""

from __future__ import annotations

import re
from functools import lru_cache

_STAR = "*"
_ANY = "?"
_SPACE = " "
#: A token: a literal character ("=x"), any one character (`?`), whitespace (`:*`'s separator), or `*`.
Token = str
_WILDCARD = re.compile(r"(?<!\\)(?:\\\\)*[*?]")


def _tokens(pattern: str) -> tuple[Token, ...]:
    out: list[Token] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern) and pattern[i + 1] in "\\*?":
            out.append("=" + pattern[i + 1])
            i += 2
            continue
        if char == "*":
            if not out or out[-1] != _STAR:
                out.append(_STAR)
        elif char == "?":
            out.append(_ANY)
        else:
            out.append("=" + char)
        i += 1
    return tuple(out)


class CommandPattern:
    """One rule pattern, compiled once (see `compile_pattern`)."""

    def __init__(self, pattern: str) -> None:
        body = pattern
        self.alternatives: tuple[tuple[Token, ...], ...]
        if pattern.endswith(":*") and not _WILDCARD.search(pattern[:-2]):
            body = pattern[:-2]
            base = _tokens(body)
            self.alternatives = (base, (*base, _SPACE, _STAR))
        else:
            self.alternatives = (_tokens(body),)

    def _states(self, text: str) -> list[set[int]]:
        """For each alternative, the positions reachable after reading `text`."""
        found: list[set[int]] = []
        for tokens in self.alternatives:
            states = _closure({0}, tokens)
            for char in text:
                if not states:
                    break
                states = _closure(_step(states, tokens, char), tokens)
            found.append(states)
        return found

    def matches(self, text: str) -> bool:
        return any(
            len(tokens) in states
            for tokens, states in zip(self.alternatives, self._states(text), strict=True)
        )

    def could_match(self, prefix: str) -> bool:
        """Some continuation of `prefix` matches (any reachable state can still reach the end)."""
        return any(states for states in self._states(prefix))

    def matches_all(self, prefix: str) -> bool:
        """Every continuation of `prefix` matches: a reachable state from which only `*` remains."""
        return any(
            any(i < len(tokens) and all(t == _STAR for t in tokens[i:]) for i in states)
            for tokens, states in zip(self.alternatives, self._states(prefix), strict=True)
        )


def _closure(states: set[int], tokens: tuple[Token, ...]) -> set[int]:
    out = set(states)
    for i in sorted(states):
        j = i
        while j < len(tokens) and tokens[j] == _STAR:
            j += 1
            out.add(j)
    return out


def _step(states: set[int], tokens: tuple[Token, ...], char: str) -> set[int]:
    out: set[int] = set()
    for i in states:
        if i >= len(tokens):
            continue
        token = tokens[i]
        if token == _STAR:
            out.add(i)
        elif token == _ANY or (token == _SPACE and char.isspace()) or token == "=" + char:
            out.add(i + 1)
    return out


@lru_cache(maxsize=512)
def compile_pattern(pattern: str) -> CommandPattern:
    return CommandPattern(pattern)
