"""The facts of a call as the permission policy sees them, built in one line for table-driven tests."""

from __future__ import annotations

from jupyter_agent.permissions.kinds import ToolKind
from jupyter_agent.permissions.policy import CallFacts, PathAccess, RuleKind


def facts(tool: str, subject: str | None = None, *, kind: ToolKind = "edit", read_only: bool = False,
          rule_kind: RuleKind = "path", access: PathAccess | None = None,
          real_subject: str | None = None) -> CallFacts:  # fmt: skip
    return CallFacts(tool=tool, subject=subject, rule_kind=rule_kind, kind=kind, read_only=read_only,
                     access=access, real_subject=real_subject)  # fmt: skip
