"""How a notebook file is laid out on disk, read from its bytes and reproduced when the agent writes it.

Editors disagree about notebook JSON: nbformat and JupyterLab write one-space indents with sorted keys and a
final newline; Colab writes two-space indents, its own key order and no final newline; files that passed
through Windows tools have CRLF line ends or a byte order mark. Writing every file the nbformat way would
turn a one-cell edit into a diff of the whole file, so the layout is detected on read and kept on write:
an unchanged notebook serializes to the bytes it was read from.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

_FIRST_KEY = re.compile(r'\s*\{\s*"(?:[^"\\]|\\.)*"(\s*:\s*)')
#: A `\uXXXX` escape of a non-ASCII character that is not itself an escaped backslash.
_ESCAPED_NON_ASCII = re.compile(
    r"(?<!\\)(?:\\\\)*\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})"
)


@dataclass(frozen=True, kw_only=True)
class Layout:
    """The formatting choices of one file; `NBFORMAT` is what `nbformat.write` produces."""

    indent: str | None = " "
    sort_keys: bool = True
    key_separator: str = ": "
    eol: str = "\n"
    #: Whatever followed the closing brace (usually one newline; Colab writes nothing).
    tail: str = "\n"
    bom: bool = False
    ensure_ascii: bool = False

    def dump(self, nb: Mapping[str, Any]) -> bytes:
        """The notebook's bytes in this layout."""
        return (codecs.BOM_UTF8 if self.bom else b"") + (self._text(nb) + self.tail).encode("utf-8")

    def dump_cell(self, cell: Mapping[str, Any]) -> bytes:
        """One cell's bytes as `dump` writes it inside the notebook's `cells` list (two levels deep)."""
        text = self._text(cell)
        if self.indent is not None:
            text = text.replace(self.eol, self.eol + self.indent * 2)
        return text.encode("utf-8")

    def cell_separator(self) -> bytes:
        """What `dump` writes between two cells."""
        if self.indent is None:
            return self._item_separator().encode("utf-8")
        return ("," + self.eol + self.indent * 2).encode("utf-8")

    def _item_separator(self) -> str:
        return "," if self.indent is not None or self.key_separator == ":" else ", "

    def _text(self, value: Mapping[str, Any]) -> str:
        text = json.dumps(
            value,
            sort_keys=self.sort_keys,
            indent=self.indent,
            ensure_ascii=self.ensure_ascii,
            separators=(self._item_separator(), self.key_separator),
        )
        if self.eol != "\n":
            text = text.replace("\n", self.eol)  # JSON strings never hold a raw newline
        return text


NBFORMAT = Layout()


def _indent_of(text: str) -> str | None:
    """The whitespace before the second line's first token; None for a file on one line."""
    newline = text.find("\n")
    if newline < 0:
        return None
    rest = text[newline + 1 :]
    return rest[: len(rest) - len(rest.lstrip(" \t"))] or None


def _dicts(value: Any) -> Iterable[dict[str, Any]]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            mapping = cast(dict[str, Any], item)
            yield mapping
            stack.extend(mapping.values())
        elif isinstance(item, list):
            stack.extend(cast(list[Any], item))


def _keys_sorted(nb: Any) -> bool:
    return all(list(d) == sorted(d) for d in _dicts(nb))


def detect_layout(data: bytes, nb: Any) -> Layout:
    """The layout of `data`, the bytes `nb` was parsed from (keys in file order, as `json.loads` keeps them)."""
    bom = data.startswith(codecs.BOM_UTF8)
    text = data[len(codecs.BOM_UTF8) if bom else 0 :].decode("utf-8", errors="replace")
    body = text.rstrip()
    key_separator = _FIRST_KEY.match(text)
    return Layout(
        indent=_indent_of(body),
        sort_keys=_keys_sorted(nb),
        key_separator=key_separator.group(1) if key_separator else ": ",
        eol="\r\n" if "\r\n" in body or text.endswith("\r\n") else "\n",
        tail=text[len(body) :],
        bom=bom,
        ensure_ascii=body.isascii() and _escapes_non_ascii(body),
    )


def _escapes_non_ascii(body: str) -> bool:
    """Whether the text holds a `\\uXXXX` escape of a non-ASCII character. The pattern is tried only where a
    `\\u` is (a regex search over a 24 MB file of base64 images took a second)."""
    at = body.find("\\u")
    while at >= 0:
        start = at
        while start > 0 and body[start - 1] == "\\":
            start -= 1
        if _ESCAPED_NON_ASCII.match(body, start) is not None and (at - start) % 2 == 0:
            return True
        at = body.find("\\u", at + 2)
    return False


def order_like(cell: dict[str, Any], template: Mapping[str, Any]) -> dict[str, Any]:
    """The cell's keys in the template cell's order (keys the template lacks last), in place; returned.

    A file whose keys are not sorted keeps its own cell layout for the cells the agent adds or changes.
    """
    ranked = sorted(cell, key=lambda key: list(template).index(key) if key in template else len(template))
    items = [(key, cell[key]) for key in ranked]
    cell.clear()
    cell.update(items)
    return cell
