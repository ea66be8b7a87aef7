"""MCP servers' tools in the agent's pool, through the official `mcp` SDK (stdio and streamable HTTP).

Importing this package stays cheap: each name is loaded on first use, and the SDK only when a server starts
(`servers.py`), so a session without MCP servers never imports it.
"""

from typing import TYPE_CHECKING

from ..._lazy import lazy_exports

if TYPE_CHECKING:
    from .config import ConfigError, HttpServer, StdioServer, parse_server
    from .names import tool_name
    from .resources import ListMcpResources, ReadMcpResource
    from .servers import McpConnections, McpServers, ServerStatus, connect_mcp_servers
    from .tool import McpTool, map_annotations

EXPORTS = {
    "ConfigError": ".config",
    "HttpServer": ".config",
    "StdioServer": ".config",
    "parse_server": ".config",
    "tool_name": ".names",
    "ListMcpResources": ".resources",
    "ReadMcpResource": ".resources",
    "McpConnections": ".servers",
    "McpServers": ".servers",
    "ServerStatus": ".servers",
    "connect_mcp_servers": ".servers",
    "McpTool": ".tool",
    "map_annotations": ".tool",
}

__getattr__ = lazy_exports(__name__, EXPORTS)

__all__ = [
    "ConfigError",
    "HttpServer",
    "ListMcpResources",
    "McpConnections",
    "McpServers",
    "McpTool",
    "ReadMcpResource",
    "ServerStatus",
    "StdioServer",
    "connect_mcp_servers",
    "map_annotations",
    "parse_server",
    "tool_name",
]
