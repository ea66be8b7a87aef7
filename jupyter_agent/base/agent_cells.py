"""Which cells are the agent's own: a `%%agent` request or an `%agent` command.

The kernel watch does not report them as the user's work, and RunCell's ranges do not run them (a request
would start an agent inside the agent's run). Here, below both, so loading the extension imports nothing more.
"""

from __future__ import annotations


def is_agent_cell(source: str) -> bool:
    """A `%%agent` or `%agent` cell (leading blank lines and spaces allowed, as IPython allows them)."""
    return source.lstrip().startswith(("%%agent", "%agent"))
