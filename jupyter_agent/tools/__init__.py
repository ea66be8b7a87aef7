"""The tool system: one pydantic model per input, one result shape, one sandbox, permissions and hooks."""

from .context import ToolContext
from .core import AnyTool, Preview, Tool, ToolAnnotations, ToolCall, ToolInput, ToolKind, schema_for
from .dispatch import Approval, ApprovalRequest, Approve, Approver, Dispatched, Dispatcher, Reject, refuse_all
from .errors import ToolError
from .function_tool import FunctionTool, function_tool, tool
from .hooks import HookCall, Hooks, Rewrite
from .journal import CellChange, FileChange, RunJournal
from .ledger import ReadLedger
from .permissions import MODES, Allow, Ask, Decision, Deny, Mode, PermissionPolicy, Rule
from .registry import ToolPool
from .result import ErrorCode, ImageContent, Issue, ToolResult
from .sandbox import Limits, Sandbox, atomic_write, cap_text, confine, resolve_path
from .scheduler import plan_batches, run_scheduled

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
