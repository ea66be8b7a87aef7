"""The package's own tools as MCP tools, and their results as MCP content.

The definitions are the tools' own (name, description, the JSON schema of their pydantic `Input`), so an outside
agent sees what the package's agent sees; annotations say what the tool's kind says. A result is its text (and
its images), `isError` when the tool failed; it was masked by the Dispatcher, and is masked again here, for the
secrets learnt since (and for the server's own texts, an exception's message among them). This is a sink of its
own, where text leaves the kernel for an outside agent: `ui/gate.py` is the gate of what a person sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import mcp_types as types

from ..masking import mask

if TYPE_CHECKING:
    from ..base.result import ToolResult
    from ..tools.core import AnyTool

#: What an outside agent may call: the notebook, kernel and file tools, under the agent's names (`%agent serve`).
SERVED_TOOLS = (
    "NotebookRead",
    "NotebookEdit",
    "RunCell",
    "RunCode",
    "Inspect",
    "ListVariables",
    "Debug",
    "VerifyNotebook",
    "Read",
    "Grep",
    "Glob",
    "Edit",
    "Write",
    "MultiEdit",
)


def served(tools: Mapping[str, AnyTool]) -> dict[str, AnyTool]:
    """The session's tools an outside agent gets, in `SERVED_TOOLS` order (one the session lacks is left out)."""
    return {name: tools[name] for name in SERVED_TOOLS if name in tools}


def mcp_tool(tool: AnyTool) -> types.Tool:
    hints = tool.annotations
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=dict(tool.input_schema()),
        annotations=types.ToolAnnotations(
            read_only_hint=hints.read_only,
            destructive_hint=hints.destructive and not hints.read_only,
            idempotent_hint=hints.idempotent,
            open_world_hint=hints.open_world,
        ),
    )


def mcp_result(result: ToolResult) -> types.CallToolResult:
    content: list[Any] = [types.TextContent(type="text", text=mask(result.content))]
    content += [
        types.ImageContent(type="image", data=image.data, mime_type=image.media_type)
        for image in result.images
    ]
    return types.CallToolResult(content=content, is_error=result.is_error)


def error_result(text: str) -> types.CallToolResult:
    """A call the server itself refuses (unknown tool, the kernel interrupted): a tool error, never a crash."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=mask(text))], is_error=True)
