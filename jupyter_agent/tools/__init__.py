"""The tool system: one pydantic model per input, one result shape, one sandbox, permissions and hooks."""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .context import ToolContext
    from .core import (
        AnyTool,
        InstanceTool,
        Preview,
        Tool,
        ToolAnnotations,
        ToolCall,
        ToolInput,
        schema_for,
    )
    from .dispatch import (
        Approval,
        ApprovalRequest,
        Approve,
        Approver,
        Dispatched,
        Dispatcher,
        Reject,
        refuse_all,
    )
    from .errors import ToolError
    from .function_tool import FunctionTool, function_tool, tool
    from .hooks import HookCall, Hooks, Rewrite
    from .journal import CellChange, FileChange, RunJournal
    from .kinds import ToolKind
    from .ledger import ReadLedger
    from .modes import MODES, Mode
    from .permissions import Allow, Ask, Decision, Deny, PermissionPolicy, Rule
    from .registry import ToolPool
    from .result import ErrorCode, ImageContent, Issue, ToolResult
    from .sandbox import Limits, Sandbox, atomic_write, cap_text, confine, resolve_path
    from .scheduler import plan_batches, run_scheduled

__getattr__ = lazy_exports(
    __name__,
    {
        "ToolContext": ".context",
        "AnyTool": ".core",
        "InstanceTool": ".core",
        "Preview": ".core",
        "Tool": ".core",
        "ToolAnnotations": ".core",
        "ToolCall": ".core",
        "ToolInput": ".core",
        "ToolKind": ".kinds",
        "schema_for": ".core",
        "Approval": ".dispatch",
        "ApprovalRequest": ".dispatch",
        "Approve": ".dispatch",
        "Approver": ".dispatch",
        "Dispatched": ".dispatch",
        "Dispatcher": ".dispatch",
        "Reject": ".dispatch",
        "refuse_all": ".dispatch",
        "ToolError": ".errors",
        "FunctionTool": ".function_tool",
        "function_tool": ".function_tool",
        "tool": ".function_tool",
        "HookCall": ".hooks",
        "Hooks": ".hooks",
        "Rewrite": ".hooks",
        "CellChange": ".journal",
        "FileChange": ".journal",
        "RunJournal": ".journal",
        "ReadLedger": ".ledger",
        "MODES": ".modes",
        "Allow": ".permissions",
        "Ask": ".permissions",
        "Decision": ".permissions",
        "Deny": ".permissions",
        "Mode": ".modes",
        "PermissionPolicy": ".permissions",
        "Rule": ".permissions",
        "ToolPool": ".registry",
        "ErrorCode": ".result",
        "ImageContent": ".result",
        "Issue": ".result",
        "ToolResult": ".result",
        "Limits": ".sandbox",
        "Sandbox": ".sandbox",
        "atomic_write": ".sandbox",
        "cap_text": ".sandbox",
        "confine": ".sandbox",
        "resolve_path": ".sandbox",
        "plan_batches": ".scheduler",
        "run_scheduled": ".scheduler",
    },
)

__all__ = [
    "MODES",
    "Allow",
    "AnyTool",
    "Approval",
    "ApprovalRequest",
    "Approve",
    "Approver",
    "Ask",
    "CellChange",
    "Decision",
    "Deny",
    "Dispatched",
    "Dispatcher",
    "ErrorCode",
    "FileChange",
    "FunctionTool",
    "HookCall",
    "Hooks",
    "ImageContent",
    "InstanceTool",
    "Issue",
    "Limits",
    "Mode",
    "PermissionPolicy",
    "Preview",
    "ReadLedger",
    "Reject",
    "Rewrite",
    "Rule",
    "RunJournal",
    "Sandbox",
    "Tool",
    "ToolAnnotations",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolInput",
    "ToolKind",
    "ToolPool",
    "ToolResult",
    "atomic_write",
    "cap_text",
    "confine",
    "function_tool",
    "plan_batches",
    "refuse_all",
    "resolve_path",
    "run_scheduled",
    "schema_for",
    "tool",
]
