"""Calls tools the way the agent loop does: by name, with JSON input, through the real Dispatcher, in a real
sandbox. One harness for every tool test, so a test says only what differs from the defaults.

The defaults are the Dispatcher's own: mode "default", no rules, no hooks, an approver that refuses (nobody is
there), the process-wide secret registry. A test that needs a call to run without asking says
`mode="bypassPermissions"`, so what it relies on is written where it is relied on; `file_harness` is the one
preset (the file tools, nobody asked), as the file-tool tests use them.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from jupyter_agent.base.result import ToolResult
from jupyter_agent.builtin_tools.files import RgLocator, file_tools, find_rg
from jupyter_agent.masking import REGISTRY, SecretRegistry
from jupyter_agent.permissions.policy import Mode, ToolScope
from jupyter_agent.tools import (
    Approval,
    ApprovalRequest,
    Approve,
    Dispatcher,
    Limits,
    PermissionPolicy,
    Rule,
    Sandbox,
    ToolCall,
    ToolContext,
    ToolPool,
)
from jupyter_agent.tools.context import Asker, ToolServices
from jupyter_agent.tools.core import AnyTool
from jupyter_agent.tools.dispatch import Approver, Dispatched, refuse_all
from jupyter_agent.tools.hooks import Hooks

#: No input given: the call's input is `{}` plus the keyword fields (None is an input like any other).
NO_INPUT: Any = object()


class ToolHarness:
    """A pool of `tools`, a Dispatcher and a ToolContext; `call` runs one call as the agent loop would.

    `root` is where the tools work: a directory (a sandbox is made there with `roots`, `limits` and `network`,
    and a context with `namespace`, `services`, `asker` and `progress`), a Sandbox the test made, or a whole
    ToolContext the test keeps (a notebook world's).

    The pool holds `tools` as the "builtin" source, or `sources` by name (the MCP tests: one per server), or
    is the `pool` a test keeps in sync itself.

    `policy` is a whole policy the test made (it may keep it to look at later); otherwise one is built from
    `mode`, the `allow`/`ask`/`deny` rules (a `Rule` or its text, as `--allow` takes it) and `scope`.
    """

    def __init__(
        self,
        root: str | Path | Sandbox | ToolContext,
        tools: Iterable[AnyTool] = (),
        *,
        sources: Mapping[str, Iterable[AnyTool]] | None = None,
        pool: ToolPool | None = None,
        mode: Mode = "default",
        allow: Iterable[Rule | str] = (),
        ask: Iterable[Rule | str] = (),
        deny: Iterable[Rule | str] = (),
        scope: ToolScope | None = None,
        policy: PermissionPolicy | None = None,
        hooks: Hooks | None = None,
        approver: Approver = refuse_all,
        secrets: SecretRegistry = REGISTRY,
        roots: tuple[str | Path, ...] = (),
        limits: Limits | None = None,
        network: bool = False,
        namespace: dict[str, Any] | None = None,
        services: ToolServices | None = None,
        asker: Asker | None = None,
        progress: Callable[[str, str], None] | None = None,
    ) -> None:
        if policy is not None and (mode != "default" or allow or ask or deny or scope is not None):
            raise TypeError("pass either a whole policy or mode/allow/ask/deny/scope, not both")
        if not isinstance(root, str | Path) and (roots or limits is not None or network):
            raise TypeError("roots/limits/network make a new sandbox: pass a directory with them")
        context = (namespace, services, asker, progress)
        if isinstance(root, ToolContext) and any(part is not None for part in context):
            raise TypeError(
                "namespace/services/asker/progress make a new context: pass a directory or Sandbox"
            )
        self.pool = pool or ToolPool()
        if pool is None:
            for source, given in (sources or {"builtin": tools}).items():
                self.pool.set_source(source, given)
        self.policy = policy or PermissionPolicy(
            mode=mode, allow=_rules(allow), ask=_rules(ask), deny=_rules(deny), scope=scope
        )
        self.dispatcher = Dispatcher(
            pool=self.pool, policy=self.policy, hooks=hooks, approver=approver, secrets=secrets
        )
        self.ctx = root if isinstance(root, ToolContext) else _context(root, roots, limits, network, *context)

    @property
    def root(self) -> Path:
        return self.ctx.sandbox.cwd

    def but(
        self,
        *,
        policy: PermissionPolicy | None = None,
        hooks: Hooks | None = None,
        approver: Approver | None = None,
    ) -> ToolHarness:
        """The same tools and context (what was read, the journal), behind another policy, hooks or approver."""
        twin = copy.copy(self)
        twin.policy = policy or self.policy
        twin.dispatcher = Dispatcher(
            pool=self.pool,
            policy=twin.policy,
            hooks=hooks or self.dispatcher.hooks,
            approver=approver or self.dispatcher.approver,
            secrets=self.dispatcher.secrets,
        )
        return twin

    async def adispatch(
        self,
        name: str,
        tool_input: Any = NO_INPUT,
        /,
        *,
        call_id: str = "toolu_1",
        on_running: Callable[[str], None] | None = None,
        **fields: Any,
    ) -> Dispatched:
        """The whole outcome (result, title, kind, decision); `tool_input` may be anything, to test validation."""
        given = {} if tool_input is NO_INPUT else tool_input
        payload = {**given, **fields} if fields else given
        call = ToolCall(id=call_id, name=name, input=payload)
        return await self.dispatcher.dispatch(call, self.ctx, on_running=on_running)

    async def acall(self, name: str, tool_input: Any = NO_INPUT, /, *, call_id: str = "toolu_1", **fields: Any) -> ToolResult:  # fmt: skip
        return (await self.adispatch(name, tool_input, call_id=call_id, **fields)).result

    def dispatch(self, name: str, tool_input: Any = NO_INPUT, /, *, call_id: str = "toolu_1", **fields: Any) -> Dispatched:  # fmt: skip
        return asyncio.run(self.adispatch(name, tool_input, call_id=call_id, **fields))

    def call(self, name: str, tool_input: Any = NO_INPUT, /, *, call_id: str = "toolu_1", **fields: Any) -> ToolResult:  # fmt: skip
        return self.dispatch(name, tool_input, call_id=call_id, **fields).result

    def ok(self, name: str, tool_input: Any = NO_INPUT, /, **fields: Any) -> ToolResult:
        """`call`, failing the test with the result's text when it is an error."""
        result = self.call(name, tool_input, **fields)
        assert not result.is_error, result.content
        return result

    def read(self, path: str) -> ToolResult:
        return self.ok("Read", file_path=path)


def file_harness(
    root: str | Path | Sandbox | ToolContext, *, locate_rg: RgLocator = find_rg, **overrides: Any
) -> ToolHarness:
    """The file tools with nobody asked (`bypassPermissions` unless `overrides` say otherwise)."""
    return ToolHarness(root, file_tools(locate_rg=locate_rg), **{"mode": "bypassPermissions", **overrides})


class Approvals:
    """An approver that gives `answers` in turn, then `then` to every later request (by default the last answer
    again), and keeps every request it was given."""

    def __init__(self, *answers: Approval, then: Approval | None = None) -> None:
        self.answers = list(answers)
        self.then = then or (answers[-1] if answers else Approve())
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self.requests.append(request)
        return self.answers.pop(0) if self.answers else self.then


def _context(
    root: str | Path | Sandbox,
    roots: tuple[str | Path, ...],
    limits: Limits | None,
    network: bool,
    namespace: dict[str, Any] | None,
    services: ToolServices | None,
    asker: Asker | None,
    progress: Callable[[str, str], None] | None,
) -> ToolContext:
    sandbox = (
        root if isinstance(root, Sandbox) else Sandbox.at(root, roots=roots, limits=limits, network=network)
    )
    services = services or ToolServices()
    if asker is not None:
        services = dataclasses.replace(services, questions=asker)
    return ToolContext(sandbox=sandbox, namespace=namespace, services=services, progress=progress)


def _rules(rules: Iterable[Rule | str]) -> list[Rule]:
    return [rule if isinstance(rule, Rule) else Rule.parse(rule) for rule in rules]
