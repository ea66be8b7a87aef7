"""MCP servers' tools in the agent's pool, through the official `mcp` SDK (stdio and streamable HTTP)."""

from __future__ import annotations

from .client import McpConnections, McpServers, ServerStatus, connect_mcp_servers
from .config import ConfigError, HttpServer, StdioServer, parse_server
from .resources import ListMcpResources, ReadMcpResource
from .tool import McpTool, map_annotations, tool_name

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
