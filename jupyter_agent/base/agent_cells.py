"""Which cells are the agent's own: a `%%agent` request or an `%agent` command, and the package's own lines.

The kernel watch does not report them as the user's work, and RunCell's ranges do not run them (a request
would start an agent inside the agent's run). Here, below both, so loading the extension imports nothing more.
"""

from __future__ import annotations

import re

#: A line that only works the package: loading it (`%load_ext jupyter_agent`, `%reload_ext`, `%unload_ext`) or
#: an `%agent` command. The kernel note leaves them out: they are not the user's analysis.
_PACKAGE_LINE = re.compile(r"%{1,2}agent\b|%(re|un)?load_ext\s+jupyter_agent\s*$")


def is_agent_cell(source: str) -> bool:
    """A `%%agent` or `%agent` cell (leading blank lines and spaces allowed, as IPython allows them)."""
    return source.lstrip().startswith(("%%agent", "%agent"))


def is_package_line(line: str) -> bool:
    """`%load_ext jupyter_agent` and its kin, or an `%agent` line (spaces around allowed)."""
    return _PACKAGE_LINE.match(line.strip()) is not None


def is_package_cell(source: str) -> bool:
    """An agent cell, or a cell whose every non-blank line only works the package (nothing of the user's)."""
    lines = [line for line in source.splitlines() if line.strip()]
    return is_agent_cell(source) or (bool(lines) and all(is_package_line(line) for line in lines))
