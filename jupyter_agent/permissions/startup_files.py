"""Files that run when the kernel (re)starts: a module in its working directory that shadows one it imports.

A kernel is started as `python -m ipykernel_launcher` in the notebook's directory, and `-m` puts that directory
first on `sys.path`: a top-level `ipykernel_launcher.py`, `IPython/`, `zmq/`, `json.py` … there is imported
instead of the real module at the next restart, outside any sandbox. So writing one is a protected path (it
asks, like `.git/hooks`), and the Bash sandbox keeps the existing ones read-only and removes new ones.

Which names count: every top-level module this kernel has imported (what its next start will import too), and
the ones it needs before anything else, minus those Python imports during its own start-up, before the working
directory is on the path (shadowing them has no effect, and `site/` or `os/` folders are common).
"""

from __future__ import annotations

import re
import sys
from pathlib import PurePosixPath

#: Imported by every kernel at start, whether or not this process has imported them yet.
KERNEL_MODULES = frozenset(
    {
        "ipykernel_launcher", "ipykernel", "IPython", "zmq", "tornado", "traitlets", "jupyter_client",
        "jupyter_core", "comm", "debugpy", "matplotlib_inline", "prompt_toolkit", "pygments", "psutil",
        "platformdirs", "packaging", "nest_asyncio", "asyncio", "json", "logging", "jupyter_agent",
        "sitecustomize", "usercustomize",
    }
)  # fmt: skip
#: Imported while Python itself starts, before the working directory is on `sys.path`: not shadowable.
_BEFORE_PATH = frozenset(
    {
        "site", "os", "sys", "builtins", "encodings", "codecs", "io", "abc", "stat", "posixpath", "genericpath",
        "ntpath", "_collections_abc", "_sitebuiltins", "_distutils_hack", "__main__", "__future__", "types",
        "importlib", "zipimport", "marshal", "posix", "time", "errno", "_io", "_abc", "_stat", "_codecs",
    }
)  # fmt: skip
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


_cache: tuple[int, frozenset[str]] = (-1, frozenset())


def startup_modules() -> frozenset[str]:
    """Top-level module names a kernel started in a directory would import from that directory first
    (recomputed only when the set of imported modules grew)."""
    global _cache
    count = len(sys.modules)
    if _cache[0] != count:
        _cache = (count, _compute())
    return _cache[1]


def _compute() -> frozenset[str]:
    loaded = {name.split(".", 1)[0] for name in list(sys.modules)}
    names = (loaded | KERNEL_MODULES) - _BEFORE_PATH - set(sys.builtin_module_names)
    return frozenset(n for n in names if _MODULE_NAME.fullmatch(n))


_MODULE_FILE = re.compile(r"(?P<name>[^./]+)(?:\.[^/]*)?\.(?:py|pyc|so|pyd)")


def shadowed_module(relative: str) -> str | None:
    """The module a path relative to a working directory would shadow, or None: a top-level module file
    (`json.py`, `zmq.cpython-311-x86_64-linux-gnu.so`) or what makes a top-level folder a package
    (`IPython/__init__.py`). Only the top level counts: that is what is on `sys.path`; a folder without
    `__init__` does not shadow an installed package."""
    parts = PurePosixPath(relative).parts
    if len(parts) == 1:
        match = _MODULE_FILE.fullmatch(parts[0])
        name = match.group("name") if match else None
    elif len(parts) == 2 and _MODULE_FILE.fullmatch(parts[1]) and parts[1].startswith("__init__."):
        name = parts[0]
    else:
        return None
    return name if name is not None and name in startup_modules() else None
