"""MCP server settings, as in Claude Code's `.mcp.json`: a stdio command or a streamable HTTP URL.

`{"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}}`
`{"api": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${API_TOKEN}"}}}`

`${VAR}` and `${VAR:-default}` in the command, args, env, cwd, url and headers are taken from the kernel's
environment, so a notebook never has to hold a token itself.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, ValidationError

from ...base.json_values import is_array, is_object

#: Seconds an MCP tool call may go without an answer or a progress notification (the mcp_timeout default).
DEFAULT_CALL_TIMEOUT = 60.0

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class StdioServer(BaseModel):
    """A server the agent starts as a subprocess and talks to over stdin/stdout."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["stdio"] = "stdio"
    command: str
    args: list[str] = []
    #: Added to a minimal inherited environment (HOME, PATH, SHELL, TERM, USER, LOGNAME): no API keys leak.
    env: dict[str, str] = {}
    cwd: str | None = None

    def describe(self) -> str:
        return " ".join([self.command, *self.args])


class HttpServer(BaseModel):
    """A server reached over MCP's streamable HTTP transport."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["http", "streamable-http", "streamable_http"] = "http"
    url: str
    headers: dict[str, str] = {}

    def describe(self) -> str:
        return self.url


ServerConfig = StdioServer | HttpServer


class ConfigError(ValueError):
    """A server's settings are unusable; the message says which field and how to fix it."""


def expand(text: str, environ: Mapping[str, str]) -> str:
    def substitute(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in environ:
            return environ[name]
        if default is not None:
            return default
        raise ConfigError(f"the environment variable {name} is not set (used as ${{{name}}})")

    return _VARIABLE.sub(substitute, text)


def _expand_all(value: Any, environ: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return expand(value, environ)
    if is_array(value):
        return [_expand_all(item, environ) for item in value]
    if is_object(value):
        return {key: _expand_all(item, environ) for key, item in value.items()}
    return value


def parse_server(raw: object, environ: Mapping[str, str] | None = None) -> ServerConfig:
    """Validate one server's settings; raise ConfigError naming what is wrong."""
    if not isinstance(raw, dict):
        raise ConfigError(
            'expected a dict like {"command": "...", "args": [...]} or {"url": "http://..."}, '
            f"got {type(raw).__name__}"
        )
    settings: dict[str, Any] = {str(k): v for k, v in cast("dict[object, object]", raw).items()}
    kind = settings.get("type")
    if kind == "sse":
        raise ConfigError('the SSE transport is not supported; use streamable HTTP ("type": "http") instead')
    if "url" in settings and "command" in settings:
        raise ConfigError('give either "command" (stdio) or "url" (HTTP), not both')
    model: type[StdioServer] | type[HttpServer] = (
        HttpServer if "url" in settings or kind == "http" else StdioServer
    )
    if model is StdioServer and "command" not in settings:
        raise ConfigError(
            'add "command" (a program to start, with "args") or "url" (a streamable HTTP endpoint)'
        )
    try:
        return model.model_validate(_expand_all(settings, os.environ if environ is None else environ))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'settings'}: {error['msg']}"
            for error in exc.errors()
        )
        raise ConfigError(problems) from None
