"""An MCP server's tool as one of ours: `mcp__<server>__<tool>`, its hints as annotations, its content as a result.

Annotation mapping (MCP hints are untrusted claims, so the safe reading wins when one is missing):
read_only ← readOnlyHint (default false); destructive ← destructiveHint (default true; false when read-only);
idempotent ← idempotentHint; open_world ← openWorldHint (default true, as in the MCP spec).
A read-only tool runs without asking; anything else asks in the default mode, like every non-read tool.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp.types as mcp_types
from mcp.shared.exceptions import MCPError

from ...base.errors import ToolError
from ...base.images import NotAnImage, decode_base64, image_content
from ...base.result import ImageContent, ToolResult
from ...masking import cap_text, shorten
from ...tools.context import ToolContext
from ...tools.core import InstanceTool, ToolAnnotations
from .config import DEFAULT_CALL_TIMEOUT
from .names import tool_name
from .output_check import output_problem
from .schema import JsonSchemaArguments, arguments_model, model_facing_schema

_MAX_DESCRIPTION = 4000
#: How a transport reports a server process that is gone (besides MCPError CONNECTION_CLOSED).
CONNECTION_LOST = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, ConnectionError)
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def map_annotations(hints: mcp_types.ToolAnnotations | None) -> ToolAnnotations:
    if hints is None:
        return ToolAnnotations()
    read_only = bool(hints.read_only_hint)
    return ToolAnnotations(
        read_only=read_only,
        destructive=False if read_only else hints.destructive_hint is not False,
        idempotent=bool(hints.idempotent_hint),
        open_world=hints.open_world_hint is not False,
    )


def image_block(media_type: str, data: str, max_bytes: int) -> ImageContent | str:
    """The image, labelled with what its bytes really are, or a one-line note of why it is left out (a server's
    `mimeType` is a claim: an "image" whose base64 decodes to text would make the API refuse the request)."""
    if media_type not in _IMAGE_TYPES:
        return f"[image of type {media_type} omitted: not a type the model reads]"
    raw = decode_base64(data)
    if isinstance(raw, NotAnImage):
        return f"[{media_type} image omitted: {raw.reason}]"
    if len(raw) > max_bytes:
        return f"[{media_type} image of {len(raw)} bytes omitted: over the {max_bytes}-byte cap]"
    image = image_content(raw)
    if isinstance(image, NotAnImage):
        return f"[{media_type} image omitted: {image.reason}]"
    return image


def _link_text(link: mcp_types.ResourceLink, server: str) -> str:
    """A resource link as a line the model can act on: what it is, and how to read it."""
    about = ", ".join(part for part in (link.name, link.mime_type) if part)
    described = f": {link.description}" if link.description else ""
    return (
        f"[resource link: {link.uri} ({about}){described}; ReadMcpResource with server '{server}' and this uri "
        "reads it]"
    )


def _blocks(
    result: mcp_types.CallToolResult, max_image_bytes: int, server: str
) -> tuple[list[str], list[ImageContent]]:
    texts: list[str] = []
    images: list[ImageContent] = []

    def keep(piece: ImageContent | str) -> None:
        if isinstance(piece, ImageContent):
            images.append(piece)
        else:
            texts.append(piece)

    for block in result.content:
        if isinstance(block, mcp_types.TextContent):
            texts.append(block.text)
        elif isinstance(block, mcp_types.ImageContent):
            keep(image_block(block.mime_type, block.data, max_image_bytes))
        elif isinstance(block, mcp_types.AudioContent):
            texts.append(f"[audio ({block.mime_type}) omitted]")
        elif isinstance(block, mcp_types.ResourceLink):
            texts.append(_link_text(block, server))
        else:
            resource = block.resource
            if isinstance(resource, mcp_types.TextResourceContents):
                texts.append(f"[resource {resource.uri}]\n{resource.text}")
            elif (resource.mime_type or "") in _IMAGE_TYPES:
                keep(image_block(resource.mime_type or "", resource.blob, max_image_bytes))
            else:
                texts.append(
                    f"[binary resource {resource.uri} ({resource.mime_type or 'unknown type'}) omitted]"
                )
    # structuredContent repeats the content blocks as JSON (an image's base64 too): only a result without
    # any content block is shown through it.
    if not result.content and result.structured_content is not None:
        texts.append(json.dumps(result.structured_content, indent=2, ensure_ascii=False, default=str))
    return texts, images


class McpTool(InstanceTool[JsonSchemaArguments]):
    """One tool of a connected server; `session` gives the live client (None once the server is gone)."""

    def __init__(
        self,
        *,
        server: str,
        remote: mcp_types.Tool,
        session: Callable[[], Any | None],
        why_gone: Callable[[], str],
        on_lost: Callable[[str], None] = lambda _: None,
        settle: Callable[[], Awaitable[None]] | None = None,
        name: str | None = None,
        timeout: Callable[[], float] = lambda: DEFAULT_CALL_TIMEOUT,
    ) -> None:
        name = name or tool_name(server, remote.name)
        text = (remote.description or "").strip() or f"The tool {remote.name} of the MCP server {server}."
        annotations = map_annotations(remote.annotations)
        self._schema = model_facing_schema(remote.input_schema)
        super().__init__(
            name=name,
            description=shorten(text, _MAX_DESCRIPTION),
            input_model=arguments_model(name, self._schema),
            kind="read" if annotations.read_only else "other",
            annotations=annotations,
        )
        self.server = server
        self.remote_name = remote.name
        self._session = session
        self._why_gone = why_gone
        self._on_lost = on_lost
        #: Waits for a re-listing the call set off (the server changed its tools meanwhile), see following.py.
        self._settle = settle
        self._timeout = timeout

    def input_schema(self) -> dict[str, Any]:
        return self._schema

    async def run(self, params: JsonSchemaArguments, ctx: ToolContext) -> ToolResult:
        client = self._session()
        label = f"{self.remote_name} (MCP server '{self.server}')"
        restart = f"`%agent mcp restart {self.server}` starts it again"
        if client is None:
            raise ToolError(
                "NOT_AVAILABLE",
                f"{label} cannot run: the server is not connected ({self._why_gone()}); {restart}",
            )
        limits = ctx.sandbox.limits
        seconds = self._timeout()
        try:
            result = await _call_watched(client, self.remote_name, params.arguments(), seconds, ctx)
        except TimeoutError:
            raise ToolError(
                "TIMEOUT",
                f"{label} did not answer or report progress for {seconds:g} s (the mcp_timeout setting); the "
                "server may still be working on it",
            ) from None
        except CONNECTION_LOST:
            self._on_lost("it closed the connection")
            raise ToolError(
                "NOT_AVAILABLE", f"{label}: the server closed the connection; {restart}"
            ) from None
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED:
                self._on_lost("it closed the connection")
                raise ToolError(
                    "NOT_AVAILABLE", f"{label}: the server closed the connection; {restart}"
                ) from None
            raise ToolError("EXECUTION_ERROR", f"{label} refused the call: {exc.message}") from None
        except RuntimeError as exc:
            problem = output_problem(label, exc)
            if problem is None:
                raise
            raise ToolError("EXECUTION_ERROR", problem) from None
        if self._settle is not None:
            await self._settle()
        texts, images = _blocks(result, limits.max_image_bytes, self.server)
        text = cap_text("\n".join(texts).strip(), limits.max_output_chars)
        if result.is_error:
            return ToolResult.error(
                "EXECUTION_ERROR",
                f"{label} reported an error: {text or '(no message)'}",
                images=tuple(images),
            )
        return ToolResult.ok(text or "(no output)", images=tuple(images))


async def _call_watched(
    client: Any, name: str, arguments: dict[str, Any], seconds: float, ctx: ToolContext
) -> mcp_types.CallToolResult:
    """The call, given up after `seconds` without an answer or a progress notification; each notification
    restarts the count and is shown on the call's card."""
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(seconds) as deadline:

        async def progress(done: float, total: float | None, message: str | None) -> None:
            deadline.reschedule(loop.time() + seconds)
            if ctx.progress is not None:
                ctx.progress(_progress_text(done, total), (message or "")[:200])

        return await client.call_tool(name, arguments, progress_callback=progress)


def _progress_text(done: float, total: float | None) -> str:
    """`40/100`, `3` (no total), `40%` for fractions of 1."""
    if total:
        if total == 1 and 0 <= done <= 1:
            return f"{done:.0%}"
        return f"{done:g}/{total:g}"
    return f"{done:g}"
