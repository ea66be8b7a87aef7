"""The parts of `%agent serve` that need no kernel: the command line, the loopback guard in front of the MCP app
(a real uvicorn on 127.0.0.1, a real HTTP client), the token file, and the tools as MCP tools."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import httpx2
import mcp_types
import pytest

from jupyter_agent.serve.guard import LoopbackGuard, is_loopback_origin
from jupyter_agent.serve.http_thread import HttpThread
from jupyter_agent.serve.listing import SERVED_TOOLS, mcp_result, mcp_tool, served
from jupyter_agent.serve.options import APPROVAL_TIMEOUT, ServeUsageError, parse_serve
from jupyter_agent.serve.server import _write_token


def test_the_command_line_parses_every_option() -> None:
    options = parse_serve(
        [
            "--port",
            "8765",
            "--token-file=tok",
            "--mode",
            "acceptEdits",
            "--allow",
            "RunCode,Edit(src/**)",
            "--deny",
            "Write",
        ]
    )
    assert options.port == 8765 and options.token_file == Path("tok") and options.mode == "acceptEdits"
    assert options.allow == ("RunCode", "Edit(src/**)") and options.deny == ("Write",)
    assert parse_serve([]).approval_timeout == APPROVAL_TIMEOUT and parse_serve([]).mode == "default"


@pytest.mark.parametrize(
    ("words", "named"),
    [
        (["--mode", "yolo"], "--mode 'yolo' is not a mode; use one of default"),
        (["--port", "http"], "--port 'http' is not a number"),
        (["--port", "70000"], "--port 70000 is out of range"),
        (["--port"], "--port needs a value"),
        (["--host", "0.0.0.0"], "unexpected '--host'"),
        (["--allow", "Edit(("], "%agent serve:"),
    ],
    ids=[
        "unknown mode",
        "port not a number",
        "port out of range",
        "flag without value",
        "no --host",
        "bad rule",
    ],
)
def test_a_mistake_names_the_word_and_the_fix(words: list[str], named: str) -> None:
    with pytest.raises(ServeUsageError) as refused:
        parse_serve(words)
    assert named in str(refused.value)


@pytest.mark.parametrize(
    ("origin", "loopback"),
    [
        ("http://127.0.0.1:6274", True),
        ("http://localhost:3000", True),
        ("http://[::1]:8080", True),
        ("https://127.0.0.2", True),
        ("https://evil.example", False),
        ("http://127.0.0.1.evil.example", False),
        ("null", False),
        ("file://", False),
    ],
)
def test_only_a_loopback_origin_passes(origin: str, loopback: bool) -> None:
    assert is_loopback_origin(origin) is loopback


async def _ok(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":  # what a Starlette app does at start and stop
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def test_the_guard_answers_401_and_403_before_the_app_sees_the_request() -> None:
    http = HttpThread(LoopbackGuard(_ok, token="s3cret-token-value"), port=0)
    http.start()
    try:
        url = f"http://127.0.0.1:{http.port}/mcp"
        good = {"Authorization": "Bearer s3cret-token-value"}
        assert httpx2.get(url).status_code == 401
        assert httpx2.get(url).headers["www-authenticate"].startswith("Bearer")
        assert httpx2.get(url, headers={"Authorization": "Bearer s3cret-token-valuX"}).status_code == 401
        assert httpx2.get(url, headers={**good, "Origin": "https://evil.example"}).status_code == 403
        assert httpx2.get(url, headers=good).text == "ok"
    finally:
        http.stop()
    with pytest.raises(httpx2.ConnectError):
        httpx2.get(url, headers=good)


def test_a_taken_port_is_refused_with_its_reason() -> None:
    first = HttpThread(_ok, port=0)
    try:
        with pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{first.port}.*choose another --port"):
            HttpThread(_ok, port=first.port)
    finally:
        first.stop()


def test_the_token_file_is_private_and_holds_only_the_token(tmp_path: Path) -> None:
    path = tmp_path / "token"
    _write_token(path, "abc123-token")
    assert path.read_text() == "abc123-token\n"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    (tmp_path / "elsewhere").write_text("keep")
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError, match="Too many levels of symbolic links"):
        _write_token(tmp_path / "link", "abc123-token")
    assert (tmp_path / "elsewhere").read_text() == "keep"


def test_the_served_tools_keep_their_own_schema_and_hints() -> None:
    from jupyter_agent.builtin_tools.catalog import builtin_tools

    tools = {tool.name: tool for tool in builtin_tools()}
    offered = served(tools)
    assert list(offered) == [name for name in SERVED_TOOLS if name in tools]
    edit, read = mcp_tool(tools["Edit"]), mcp_tool(tools["Read"])
    assert edit.input_schema == tools["Edit"].input_schema()
    assert edit.input_schema["additionalProperties"] is False
    assert edit.annotations is not None and edit.annotations.destructive_hint is True
    assert read.annotations is not None and read.annotations.read_only_hint is True
    assert read.annotations.destructive_hint is False


def test_a_result_is_masked_and_an_error_is_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    from jupyter_agent.base.result import ToolResult

    monkeypatch.setenv(
        "SERVE_UNIT_SECRET", "sk-serve-unit-0123456789"
    )  # gone after the test, unlike a register
    shown = mcp_result(ToolResult.error("FILE_NOT_FOUND", "no sk-serve-unit-0123456789 here"))
    assert shown.is_error is True
    first = shown.content[0]
    assert isinstance(first, mcp_types.TextContent)
    text = first.text
    assert "sk-serve-unit-0123456789" not in text and "FILE_NOT_FOUND" in text
