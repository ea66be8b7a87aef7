"""The tool system: one pydantic model per input, one result shape, one sandbox, permissions and hooks.

The names here are the public API: for writing tools (`tool`, `Tool`, `ToolInput`, `ToolResult`, …), for
hooks (`HookCall`, `Allow`, `Ask`, `Deny`, `Rewrite`), and for running tools through the one `Dispatcher`
outside a kernel. Everything else is imported from its module. Importing this package stays cheap: each
name is loaded on first use.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ..base.errors import ToolError
    from ..base.result import ToolResult
    from ..base.sandbox import Limits, Sandbox
    from ..permissions.policy import Allow, Ask, Deny, PermissionPolicy, Rule
    from .context import ToolContext
    from .core import Preview, Tool, ToolAnnotations, ToolCall, ToolInput
    from .dispatch import Approval, ApprovalRequest, Approve, Dispatcher, Reject
    from .function_tool import FunctionTool, tool
    from .hooks import HookCall, Rewrite
    from .registry import ToolPool

EXPORTS = {
    "ToolContext": ".context",
    "Preview": ".core",
    "Tool": ".core",
    "ToolAnnotations": ".core",
    "ToolCall": ".core",
    "ToolInput": ".core",
    "Approval": ".dispatch",
    "ApprovalRequest": ".dispatch",
    "Approve": ".dispatch",
    "Dispatcher": ".dispatch",
    "Reject": ".dispatch",
    "ToolError": "..base.errors",
    "FunctionTool": ".function_tool",
    "tool": ".function_tool",
    "HookCall": ".hooks",
    "Rewrite": ".hooks",
    "Allow": "..permissions.policy",
    "Ask": "..permissions.policy",
    "Deny": "..permissions.policy",
    "PermissionPolicy": "..permissions.policy",
    "Rule": "..permissions.policy",
    "ToolPool": ".registry",
    "ToolResult": "..base.result",
    "Limits": "..base.sandbox",
    "Sandbox": "..base.sandbox",
}
__getattr__ = lazy_exports(__name__, EXPORTS)

__all__ = [
    "Allow",
    "Approval",
    "ApprovalRequest",
    "Approve",
    "Ask",
    "Deny",
    "Dispatcher",
    "FunctionTool",
    "HookCall",
    "Limits",
    "PermissionPolicy",
    "Preview",
    "Reject",
    "Rewrite",
    "Rule",
    "Sandbox",
    "Tool",
    "ToolAnnotations",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolInput",
    "ToolPool",
    "ToolResult",
    "tool",
]
