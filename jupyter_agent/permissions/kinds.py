"""The two classifications every tool declares, as Literals both the tools and the permission layer read.

`ToolKind` is what a call does (the card's icon, which mode lets it run); `RuleKind` is how a rule's
pattern matches the call's subject (a path, a shell command, plain text).
"""

from __future__ import annotations

from typing import Literal

ToolKind = Literal["read", "edit", "delete", "execute", "other"]
RuleKind = Literal["path", "command", "text"]
