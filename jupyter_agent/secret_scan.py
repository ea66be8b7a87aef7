"""Find secrets in text fast: one Aho-Corasick automaton over every 8-character run of every secret's forms.

A secret leaks in parts as well as whole: a slice (`key[0:40]`), the key reversed, the tail a cut left. So
every run of `MIN_RUN` (8) characters of a secret, and of the secret reversed, in each of its encoded forms
(raw, inside a JSON string, a Python repr, HTML, URL-quoted with and without `/` kept), is a pattern. Hits that
overlap or touch are merged, so a run of 8 or more characters of a secret inside longer text is replaced whole.
Matching is one pass over the text in C (pyahocorasick), whatever the number of secrets.

Values that are locations rather than keys (a path, a URL with a password) are matched only whole, with the
URL's password (a key) matched in parts: masking every 8-character run of `/home/me/.aws/credentials` would
garble every path in the output.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterator, Mapping
from typing import Protocol, cast
from urllib.parse import quote, quote_plus

import ahocorasick

#: The shortest run of a secret that is masked wherever it appears.
MIN_RUN = 8
#: Prefixes every key of a kind starts with: public, so a run that lies inside one is not masked (or every
#: mention of `sk-ant-api03-` in documentation would be).
PUBLIC_PREFIXES = (
    "sk-ant-api03-", "sk-ant-admin01-", "sk-ant-oat01-", "sk-ant-ort01-", "sk-proj-", "github_pat_", "xoxb-",
    "xoxp-", "glpat-", "npm_", "pypi-AgEIcHlwaS5vcmc",
)  # fmt: skip


def encoded_forms(value: str) -> set[str]:
    """The value as it appears raw and inside a JSON string, a Python repr, HTML text and a URL."""
    forms = {value, json.dumps(value)[1:-1], repr(value)[1:-1], html.escape(value)}  # cut-ok: quotes
    forms |= {
        json.dumps(value, ensure_ascii=False)[1:-1],  # cut-ok: quotes
        quote(value, safe=""),
        quote(value),
        quote_plus(value),
    }
    return forms


def looks_like_location(value: str) -> bool:
    """A path or URL: masked whole only (its parts are ordinary text)."""
    return (
        "://" in value
        or value.startswith(("/", "~", "./", "../"))
        or (len(value) > 2 and value[1:3] == ":\\")
    )


class _Automaton(Protocol):
    """The part of pyahocorasick's (untyped) Automaton used here."""

    def add_word(self, key: str, value: tuple[int, str]) -> bool: ...
    def get(self, key: str, default: None) -> tuple[int, str] | None: ...
    def make_automaton(self) -> None: ...
    def iter(self, text: str) -> Iterator[tuple[int, tuple[int, str]]]: ...
    def __len__(self) -> int: ...


class SecretScanner:
    """Built once per set of secrets; `mask(text)` replaces every hit with `[redacted: NAME]`."""

    def __init__(self, secrets: Mapping[str, str], *, min_run: int = MIN_RUN) -> None:
        automaton = cast(_Automaton, ahocorasick.Automaton())  # pyright: ignore[reportUnknownMemberType]
        self.longest = 0
        for value, name in sorted(secrets.items(), key=lambda item: -len(item[0])):
            for form in encoded_forms(value):
                self.longest = max(self.longest, len(form))
                if len(form) >= min_run:
                    automaton.add_word(form, (len(form), name))  # the whole form, whatever the value
            if looks_like_location(value):
                continue
            for form in encoded_forms(value) | encoded_forms(value[::-1]):
                for start in range(len(form) - min_run + 1):
                    gram = form[start : start + min_run]
                    if any(gram in prefix for prefix in PUBLIC_PREFIXES):
                        continue
                    if automaton.get(gram, None) is None:
                        automaton.add_word(gram, (min_run, name))
        self.empty = len(automaton) == 0
        if not self.empty:
            automaton.make_automaton()
        self._automaton = automaton

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """Merged (start, end, name) of every hit: overlapping or touching hits become one span."""
        if self.empty or not text:
            return []
        hits = sorted((end + 1 - size, end + 1, name) for end, (size, name) in self._automaton.iter(text))
        merged: list[tuple[int, int, str]] = []
        for start, end, name in hits:
            if merged and start <= merged[-1][1]:
                first, last, kept = merged[-1]
                merged[-1] = (first, max(last, end), kept)
            else:
                merged.append((start, end, name))
        return merged

    def mask(self, text: str) -> str:
        spans = self.spans(text)
        if not spans:
            return text
        out: list[str] = []
        position = 0
        for start, end, name in spans:
            out.append(text[position:start])
            out.append(f"[redacted: {name}]")
            position = end
        out.append(text[position:])
        return "".join(out)
