"""One notion of "the user did not say", for the settings (`settings.py`), a run's options (`host/options.py`)
and the config made of both (`host/configure.py`, `agent/config.py`): `None` is the one sentinel, and text that
is blank counts as not said too (`%config AgentMagics.model = ""`, `--think ''`, an empty variable). What is
said wins over what is not, in order: the run's option, then the setting, then the default (`first_set`).
`0`, `False` and `"off"` are said: they are values, not silence."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def said(value: object) -> bool:
    """Whether `value` says something: not None, and not blank text."""
    return value is not None and not (isinstance(value, str) and not value.strip())


def unset_if_blank(value: str | None) -> str | None:
    """The text stripped, or None when it says nothing."""
    return value.strip() if value is not None and said(value) else None


def first_set(*values: T | None, default: T) -> T:
    """The first of `values` that is said (the run's option before the setting), else `default`."""
    for value in values:
        if value is not None and said(value):
            return value
    return default
