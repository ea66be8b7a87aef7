"""Placeholder until the magics issue: registers nothing yet."""

from __future__ import annotations

from typing import Any


def load(ipython: Any) -> None:
    del ipython


def unload(ipython: Any) -> None:
    del ipython
