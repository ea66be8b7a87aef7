"""MCP servers nobody here wrote: mcp-server-time and mcp-server-git (PyPI, test dependencies),
mcp-server-sqlite and mcp-server-calculator (PyPI, in `.venv-mcp-servers`: they need an older `mcp`) and the
reference servers server-everything and server-filesystem (npm, installed into tests/fixtures/mcp-npm by
`npm ci --prefix tests/fixtures/mcp-npm`). `scripts/install.sh --test` installs all of them; each test skips,
naming the install step, when its server is absent."""

from __future__ import annotations

import asyncio
import base64
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import Approvals, ToolHarness

from jupyter_agent.builtin_tools.mcp import McpServers
from jupyter_agent.tools import (
    Approve,
    ToolResult,
)

BIN = Path(sys.executable).parent
NPM_BIN = Path(__file__).resolve().parents[3] / "fixtures" / "mcp-npm" / "node_modules" / ".bin"
OLD_MCP_BIN = Path(__file__).resolve().parents[4] / ".venv-mcp-servers" / "bin"
PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def server_command(path: Path, install: str) -> str:
    if not path.exists():
        pytest.skip(f"{path.name} is not installed ({install})")
    return str(path)


Call = Callable[[str, dict[str, Any]], Awaitable[ToolResult]]


def with_servers(
    config: dict[str, dict[str, Any]], tmp_path: Path, body: Callable[[McpServers, Call], Awaitable[None]]
) -> list[str]:
    """Connect, put every source in a pool, run `body` with a `call` through the Dispatcher; the report lines."""
    reports: list[str] = []

    async def scenario() -> None:
        servers = McpServers(report=reports.append)
        servers.configure(config)
        await servers.settled()
        try:
            tools = ToolHarness(tmp_path, sources=servers.sources(), approver=Approvals(Approve()))
            await body(servers, tools.acall)
        finally:
            await servers.aclose()

    asyncio.run(scenario())
    return reports


def test_mcp_server_time_answers_through_the_dispatcher(tmp_path: Path) -> None:
    command = server_command(BIN / "mcp-server-time", "pip install mcp-server-time")

    async def body(servers: McpServers, call: Call) -> None:
        result = await call("mcp__time__get_current_time", {"timezone": "UTC"})
        assert not result.is_error, result.content
        assert '"timezone": "UTC"' in result.content

    with_servers({"time": {"command": command}}, tmp_path, body)


def test_mcp_server_sqlite_creates_writes_and_reads_a_table_and_its_errors_reach_the_model(
    tmp_path: Path,
) -> None:
    command = server_command(OLD_MCP_BIN / "mcp-server-sqlite", "bash scripts/install.sh --test")
    database = tmp_path / "shop.db"

    async def body(servers: McpServers, call: Call) -> None:
        made = await call(
            "mcp__sqlite__create_table", {"query": "CREATE TABLE sales (month TEXT, total REAL)"}
        )
        assert not made.is_error, made.content
        wrote = await call(
            "mcp__sqlite__write_query", {"query": "INSERT INTO sales VALUES ('March', 12.5), ('April', 3)"}
        )
        assert not wrote.is_error, wrote.content
        read = await call(
            "mcp__sqlite__read_query", {"query": "SELECT month, total FROM sales ORDER BY total"}
        )
        assert not read.is_error, read.content
        assert read.content.index("April") < read.content.index("March"), read.content
        wrong = await call("mcp__sqlite__read_query", {"query": "SELECT * FROM nowhere"})
        assert "Database error: no such table: nowhere" in wrong.content, (
            wrong.content
        )  # its text, not isError
        missing = await call("mcp__sqlite__describe_table", {})
        assert missing.error_code == "INVALID_ARGS" and "table_name" in missing.content, missing.content

    with_servers({"sqlite": {"command": command, "args": ["--db-path", str(database)]}}, tmp_path, body)
    assert database.exists()


def test_mcp_server_calculator_answers_and_a_bad_expression_is_an_error_not_a_crash(tmp_path: Path) -> None:
    command = server_command(OLD_MCP_BIN / "mcp-server-calculator", "bash scripts/install.sh --test")

    async def body(servers: McpServers, call: Call) -> None:
        result = await call("mcp__calculator__calculate", {"expression": "6 * 7 + 0.5"})
        assert not result.is_error and "42.5" in result.content, result.content
        bad = await call("mcp__calculator__calculate", {"expression": "6 *"})
        assert bad.is_error, bad.content
        again = await call("mcp__calculator__calculate", {"expression": "2 ** 10"})
        assert not again.is_error and "1024" in again.content, again.content

    with_servers({"calculator": {"command": command}}, tmp_path, body)


def test_mcp_server_git_any_of_arguments_are_accepted_and_explained(tmp_path: Path) -> None:
    command = server_command(BIN / "mcp-server-git", "pip install mcp-server-git")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)

    async def body(servers: McpServers, call: Call) -> None:
        ok = await call("mcp__git__git_branch", {"repo_path": str(repo), "branch_type": "local"})
        assert not ok.is_error, ok.content
        wrong = await call(
            "mcp__git__git_branch", {"repo_path": str(repo), "branch_type": "local", "contains": 3}
        )
        assert wrong.error_code == "INVALID_ARGS"
        assert (
            "/contains: expected one of: (1) a string; (2) null, got 3. Fix: set `contains` to one of: (1) a string; (2) null"
            in wrong.content
        ), wrong.content
        assert "Input should" not in wrong.content

    with_servers({"git": {"command": command}}, tmp_path, body)


def test_server_everything_task_only_tool_is_not_offered_and_resources_are_readable(tmp_path: Path) -> None:
    command = server_command(NPM_BIN / "mcp-server-everything", "npm ci --prefix tests/fixtures/mcp-npm")

    async def body(servers: McpServers, call: Call) -> None:
        names = [tool.name for tool in servers.sources()["mcp:everything"]]
        assert "mcp__everything__echo" in names
        assert "mcp__everything__simulate-research-query" not in names
        [status] = servers.statuses()
        assert status.detail == "not offered (they only run as MCP tasks): simulate-research-query"
        listing = await call("ListMcpResources", {"server": "everything"})
        assert "- demo://resource/static/document/architecture.md" in listing.content
        assert "- template demo://resource/dynamic/text/{resourceId}" in listing.content
        read = await call(
            "ReadMcpResource", {"server": "everything", "uri": "demo://resource/dynamic/text/1"}
        )
        assert not read.is_error and read.content, read.content

    reports = with_servers({"everything": {"command": command}}, tmp_path, body)
    assert any("simulate-research-query not offered: they only run as MCP tasks" in line for line in reports)


def test_server_filesystem_media_file_is_one_image_without_its_base64_as_text(tmp_path: Path) -> None:
    command = server_command(NPM_BIN / "mcp-server-filesystem", "npm ci --prefix tests/fixtures/mcp-npm")
    (tmp_path / "pixel.png").write_bytes(PIXEL_PNG)

    async def body(servers: McpServers, call: Call) -> None:
        result = await call("mcp__fs__read_media_file", {"path": str(tmp_path / "pixel.png")})
        assert not result.is_error, result.content
        assert [image.media_type for image in result.images] == ["image/png"]
        assert result.images[0].data not in result.content

    with_servers({"fs": {"command": command, "args": [str(tmp_path)]}}, tmp_path, body)
