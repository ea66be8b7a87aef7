"""A second, independent client drives `%agent serve`: the MCP Inspector's CLI (npm
`@modelcontextprotocol/inspector` 1.0.x, the line that runs on Node 20), installed into
tests/fixtures/mcp-inspector by `npm ci --prefix tests/fixtures/mcp-inspector` (`scripts/install.sh --test`
does it). It lists the tools and calls one; a call without the token is refused."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from frontend import AgentKernel

pytestmark = pytest.mark.kernel

INSPECTOR = Path(__file__).resolve().parents[1] / "fixtures" / "mcp-inspector"
CLI = INSPECTOR / "node_modules" / ".bin" / "mcp-inspector"


def inspector(url: str, *args: str, token: str | None) -> subprocess.CompletedProcess[str]:
    header = ["--header", f"Authorization: Bearer {token}"] if token is not None else []
    return subprocess.run(
        [str(CLI), "--cli", url, "--transport", "http", *header, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=INSPECTOR,
    )


@pytest.fixture(scope="module", autouse=True)
def installed() -> None:
    if CLI.exists():
        return
    try:
        done = subprocess.run(
            ["npm", "ci", "--prefix", str(INSPECTOR), "--no-audit", "--no-fund", "--loglevel=error"],
            capture_output=True,
            text=True,
            timeout=600,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(
            f"the MCP Inspector could not be installed from npm ({exc}); run `npm ci --prefix {INSPECTOR}`"
        )
    if done.returncode != 0 or not CLI.exists():
        pytest.skip(
            f"npm could not install the MCP Inspector (is the registry reachable?): {done.stderr[-400:]}"
        )


def test_the_mcp_inspector_lists_and_calls_the_served_tools(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, _ = agent_kernel([], headless=True)
    (tmp_path / "notes.txt").write_text("alpha\nbeta inspector\n", encoding="utf-8")
    cell = frontend.run("%agent serve --mode plan")
    text = cell.text()
    url = re.search(r"^URL (\S+)$", text, re.M)
    token = re.search(r"^TOKEN (\S+)$", text, re.M)
    assert url is not None and token is not None, text

    listed = inspector(url.group(1), "--method", "tools/list", token=token.group(1))
    assert listed.returncode == 0, listed.stderr
    names = {tool["name"] for tool in json.loads(listed.stdout)["tools"]}
    assert {"NotebookRead", "NotebookEdit", "RunCode", "Read", "Grep", "Glob", "Edit"} <= names

    called = inspector(
        url.group(1),
        "--method",
        "tools/call",
        "--tool-name",
        "Grep",
        "--tool-arg",
        "pattern=inspector",
        "--tool-arg",
        "output_mode=content",
        token=token.group(1),
    )
    assert called.returncode == 0, called.stderr
    result = json.loads(called.stdout)
    assert not result.get("isError"), result
    assert "beta inspector" in result["content"][0]["text"]

    refused = inspector(url.group(1), "--method", "tools/list", token=None)
    assert refused.returncode != 0
    assert "NotebookRead" not in refused.stdout
    frontend.run("%agent serve stop")
