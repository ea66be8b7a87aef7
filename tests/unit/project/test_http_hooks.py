"""`type: "http"` hooks (Claude Code's hooks reference): the event's JSON POSTed to the hook's `url`, header
values filled from the environment only for the variables `allowedEnvVars` lists, the response read as a command
hook's stdout (2xx + JSON decides, 2xx + empty is success; anything else a failure the agent goes on without),
its `timeout` kept. Against a real HTTP server on 127.0.0.1 run by the test; `type: "agent"` is skipped with why."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from project_tree import Tree

from jupyter_agent.permissions.policy import Deny
from jupyter_agent.tools.command_hooks import CommandHooks, HookSession
from jupyter_agent.tools.hooks import HookCall

DENY = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "the endpoint says no",
    }
}


@dataclass
class Endpoint:
    """What the server answers next (status, body, seconds to wait first) and what it was sent."""

    answer: tuple[int, str, float] = (200, "", 0.0)
    received: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    url: str = ""


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    state = Endpoint()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.received.append(
                {"path": self.path, "headers": dict(self.headers), "body": json.loads(body)}
            )
            status, text, delay = state.answer
            time.sleep(delay)
            try:
                self.send_response(status)
                self.send_header("Content-Length", str(len(text.encode())))
                self.end_headers()
                self.wfile.write(text.encode())
            except BrokenPipeError:  # the hook gave up waiting (its timeout)
                pass

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/pre"
    yield state
    server.shutdown()
    server.server_close()


def http_hooks(tree: Tree, entry: dict[str, Any], told: list[str], env: dict[str, str]) -> CommandHooks:
    tree.user_settings({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [entry]}]}})
    claude = tree.claude()
    session = HookSession(
        session_id="s1", transcript_path="", cwd=str(tree.project), permission_mode="default"
    )
    return CommandHooks(claude.settings.hooks, session=lambda: session, report=told.append, env=env)


def pre(hooks: CommandHooks) -> object:
    call = HookCall(
        tool="Bash", input={"command": "ls"}, subject="ls", tool_use_id="toolu_1", rule_kind="command"
    )
    return asyncio.run(hooks.pre_tool_use(call))


def test_an_http_hook_gets_the_event_with_only_its_allowed_variables_and_its_json_decides(
    tree: Tree, endpoint: Endpoint
) -> None:
    endpoint.answer = (200, json.dumps(DENY), 0.0)
    entry = {
        "type": "http",
        "url": endpoint.url,
        "headers": {
            "Authorization": "Bearer $HOOK_TOKEN",
            "X-Other": "${OTHER_SECRET}-x",
            "X-Plain": "plain",
        },
        "allowedEnvVars": ["HOOK_TOKEN"],
    }
    told: list[str] = []
    env = {"HOOK_TOKEN": "tok-123", "OTHER_SECRET": "must-not-leave"}
    verdict = pre(http_hooks(tree, entry, told, env))
    assert isinstance(verdict, Deny) and "the endpoint says no" in verdict.message
    (sent,) = endpoint.received
    assert sent["path"] == "/hooks/pre"
    assert sent["headers"]["Authorization"] == "Bearer tok-123"
    assert sent["headers"]["X-Other"] == "-x" and sent["headers"]["X-Plain"] == "plain"
    assert sent["headers"]["Content-Type"] == "application/json"
    assert sent["body"]["hook_event_name"] == "PreToolUse" and sent["body"]["tool_input"] == {"command": "ls"}
    assert "must-not-leave" not in json.dumps(sent) and told == []


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ((500, json.dumps(DENY), 0.0), "it answered HTTP 500"),
        ((200, "not json", 0.0), "its answer was not a JSON object"),
        ((200, "", 2.0), "no answer within 0.5 s"),
    ],
    ids=["status", "body", "timeout"],
)
def test_an_http_hook_that_fails_is_told_and_the_call_goes_on(
    tree: Tree, endpoint: Endpoint, answer: tuple[int, str, float], said: str
) -> None:
    endpoint.answer = answer
    told: list[str] = []
    entry = {"type": "http", "url": endpoint.url, "timeout": 0.5}
    assert pre(http_hooks(tree, entry, told, {})) is None  # a 500 carrying a deny does not block either
    (line,) = told
    assert line.startswith(f"PreToolUse http hook `{endpoint.url}`") and said in line, line
    assert line.endswith("the agent went on without it")


def test_an_http_hook_with_an_empty_2xx_answer_is_success(tree: Tree, endpoint: Endpoint) -> None:
    endpoint.answer = (204, "", 0.0)
    told: list[str] = []
    assert pre(http_hooks(tree, {"type": "http", "url": endpoint.url}, told, {})) is None
    assert told == [] and len(endpoint.received) == 1


def test_an_http_hook_without_an_http_url_and_an_agent_hook_are_skipped_with_why(tree: Tree) -> None:
    hooks = [
        {"type": "http", "url": "file:///etc/passwd"},
        {"type": "agent", "prompt": "Check that the tests pass"},
    ]
    path = tree.user_settings({"hooks": {"Stop": [{"hooks": hooks}]}})
    claude = tree.claude()
    assert list(claude.settings.hooks) == []
    assert claude.take_warnings() == [
        f"jupyter_agent: {path}: hooks.Stop[0].hooks[0].url: expected an http:// or https:// address, got "
        "'file:///etc/passwd'; skipped",
        f"jupyter_agent: {path}: hooks.Stop[0].hooks[1].type: 'agent' hooks are not run here (an agent hook "
        "would start a sub-agent with tools at every matching event; a 'prompt' hook asks the model without "
        "tools); skipped",
    ]


def test_two_http_hooks_of_one_event_both_run(tree: Tree, endpoint: Endpoint) -> None:
    told: list[str] = []
    hooks = [{"type": "http", "url": endpoint.url}, {"type": "http", "url": f"{endpoint.url}/audit"}]
    tree.user_settings({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}})
    session = HookSession(
        session_id="s1", transcript_path="", cwd=str(tree.project), permission_mode="default"
    )
    runner = CommandHooks(tree.claude().settings.hooks, session=lambda: session, report=told.append, env={})
    assert pre(runner) is None and told == []
    assert sorted(r["path"] for r in endpoint.received) == ["/hooks/pre", "/hooks/pre/audit"]


def test_an_http_hooks_failure_line_never_shows_a_password_in_its_url(tree: Tree) -> None:
    told: list[str] = []
    entry = {"type": "http", "url": "http://hook:pa55word-xyz@127.0.0.1:9/hooks", "timeout": 5}
    assert pre(http_hooks(tree, entry, told, {})) is None  # nothing listens on port 9: the request fails
    (line,) = told
    assert "pa55word-xyz" not in line and "`http://127.0.0.1:9/hooks`" in line, line
