"""ListMcpResources and ReadMcpResource: the resources MCP servers offer (files, records, docs), read-only.

Offered while a configured server declares the `resources` capability. Both go through the open session of
the server named in the input; a server that is down (it crashed, it is restarting) is NOT_AVAILABLE naming
`%agent mcp restart <server>`, also when it goes away in the middle of the call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import mcp.types as mcp_types
from mcp.shared.exceptions import MCPError

from ...base.errors import ToolError
from ...base.result import ImageContent, ToolResult
from ...masking import cap_text
from ...tools.context import ToolContext
from ...tools.core import AnyTool, Tool, ToolAnnotations, ToolInput
from .paging import pages
from .tool import CONNECTION_LOST, image_block

if TYPE_CHECKING:
    from .client import ServerConnection

_READS = ToolAnnotations(read_only=True, destructive=False, idempotent=True, open_world=True)


class ListMcpResourcesInput(ToolInput):
    server: str | None = None
    """Only this MCP server's resources; omit it for every connected server that offers resources."""


class ReadMcpResourceInput(ToolInput):
    server: str
    """The MCP server that offers the resource (as ListMcpResources shows it)."""
    uri: str
    """The resource's URI, from ListMcpResources (a template's URI with its {placeholders} filled in)."""


_InputT = TypeVar("_InputT", bound=ToolInput)


class _ResourceTool(Tool[_InputT]):
    kind = "read"
    annotations = _READS

    def __init__(self, servers: Callable[[], list[ServerConnection]]) -> None:
        #: The configured servers, up or down (asked at each call: they come and go during a session).
        self.servers = servers

    def _offering(self, name: str | None) -> list[ServerConnection]:
        offering = [s for s in self.servers() if s.has_resources]
        if name is None:
            return offering
        chosen = [s for s in offering if s.name == name]
        if not chosen:
            known = ", ".join(s.name for s in offering) or "none"
            raise ToolError(
                "NOT_AVAILABLE",
                f"no MCP server named '{name}' offers resources (servers with resources: {known}); "
                "call ListMcpResources without server to see them all",
            )
        return chosen


class ListMcpResources(_ResourceTool[ListMcpResourcesInput]):
    name = "ListMcpResources"
    description = (
        "List the resources (files, records, documents) that connected MCP servers offer, with their URIs, "
        "and the URI templates they accept. Read one with ReadMcpResource."
    )
    Input = ListMcpResourcesInput

    async def run(self, params: ListMcpResourcesInput, ctx: ToolContext) -> ToolResult:
        lines: list[str] = []
        count = 0
        for server in self._offering(params.server):
            client = server.client
            if client is None:
                if params.server is not None:
                    raise not_connected(server)
                lines.append(
                    f"Server '{server.name}': not connected ({server.why_not_connected()}); {_restart(server)}"
                )
                continue
            resources, templates = await _listing(server, client)
            count += len(resources)
            lines.append(
                f"Server '{server.name}': {len(resources)} resource{'s' if len(resources) != 1 else ''}"
            )
            for resource in resources:
                facts = ", ".join(f for f in (resource.mime_type, resource.description) if f)
                lines.append(f"- {resource.uri}  {resource.name}" + (f" ({facts})" if facts else ""))
            for template in templates:
                facts = ", ".join(f for f in (template.mime_type, template.description) if f)
                lines.append(
                    f"- template {template.uri_template}  {template.name}" + (f" ({facts})" if facts else "")
                )
        text = "\n".join(lines) if lines else "No connected MCP server offers resources."
        return ToolResult.ok(
            cap_text(text, ctx.sandbox.limits.max_output_chars),
            summary=f"{count} MCP resource{'s' if count != 1 else ''}",
        )


class ReadMcpResource(_ResourceTool[ReadMcpResourceInput]):
    name = "ReadMcpResource"
    description = (
        "Read one resource of an MCP server by its URI (from ListMcpResources). Text comes back as text, "
        "images as images; other binary content is named, not shown."
    )
    Input = ReadMcpResourceInput

    def title(self, params: ReadMcpResourceInput, ctx: ToolContext) -> str:
        return f"ReadMcpResource {params.uri} ({params.server})"

    async def run(self, params: ReadMcpResourceInput, ctx: ToolContext) -> ToolResult:
        server = self._offering(params.server)[0]
        client = server.client
        if client is None:
            raise not_connected(server)
        limits = ctx.sandbox.limits
        try:
            result: Any = await client.read_resource(params.uri)
        except CONNECTION_LOST as exc:
            raise lost(server, exc) from None
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED:
                raise lost(server, exc) from None
            raise ToolError(
                "EXECUTION_ERROR",
                f"MCP server '{server.name}' could not read {params.uri}: {exc.message}; "
                "check the URI with ListMcpResources",
            ) from None
        texts: list[str] = []
        images: list[ImageContent] = []
        for item in getattr(result, "contents", []):
            if isinstance(item, mcp_types.TextResourceContents):
                texts.append(item.text)
                continue
            block = image_block(item.mime_type or "", item.blob, limits.max_image_bytes)
            if isinstance(block, ImageContent):
                images.append(block)
            elif (item.mime_type or "").startswith("image/"):
                texts.append(block)
            else:
                texts.append(f"[binary content of {item.uri} ({item.mime_type or 'unknown type'}) omitted]")
        text = cap_text("\n".join(texts), limits.max_output_chars)
        return ToolResult.ok(
            text or ("(image)" if images else "(empty resource)"),
            images=tuple(images),
            summary=f"Read {params.uri} from MCP server '{server.name}'",
        )


async def _listing(
    server: ServerConnection, client: Any
) -> tuple[list[mcp_types.Resource], list[mcp_types.ResourceTemplate]]:
    resources: list[mcp_types.Resource] = []
    templates: list[mcp_types.ResourceTemplate] = []
    try:
        resources = await pages(lambda cursor: client.list_resources(cursor=cursor), "resources")
        templates = await pages(
            lambda cursor: client.list_resource_templates(cursor=cursor), "resource_templates"
        )
    except CONNECTION_LOST as exc:
        raise lost(server, exc) from None
    except MCPError as exc:
        if exc.code == mcp_types.CONNECTION_CLOSED:
            raise lost(server, exc) from None
        if not resources:
            raise ToolError(
                "EXECUTION_ERROR", f"MCP server '{server.name}' could not list its resources: {exc.message}"
            ) from None
    return resources, templates


def resource_tools(connected: Callable[[], list[ServerConnection]]) -> list[AnyTool]:
    return [ListMcpResources(connected), ReadMcpResource(connected)]


def _restart(server: ServerConnection) -> str:
    return f"`%agent mcp restart {server.name}` starts it again"


def not_connected(server: ServerConnection) -> ToolError:
    return ToolError(
        "NOT_AVAILABLE",
        f"MCP server '{server.name}' is not connected ({server.why_not_connected()}); {_restart(server)}",
    )


def lost(server: ServerConnection, exc: BaseException) -> ToolError:
    """The server went away during the call: marked lost (reported once), and the fix named."""
    server.mark_lost("it closed the connection")
    return ToolError(
        "NOT_AVAILABLE",
        f"MCP server '{server.name}' closed the connection during the call; {_restart(server)}",
    )
