"""Package exports loaded on first use, so `%load_ext jupyter_agent` does not import pydantic or the SDK."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` that imports `name` from its submodule (`exports[name]`) when first asked."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        importlib.import_module(package).__dict__[name] = value
        return value

    return __getattr__
