"""Every call goes through here: find → validate → hooks → permission → (ask) → run → hooks. Nothing escapes."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from ..base.errors import ToolError
from ..base.result import Issue, ToolResult
from ..base.stopping import current_stop
from ..masking import REGISTRY, SecretRegistry
from ..permissions.policy import (
    Allow,
    Ask,
    CallFacts,
    Decision,
    Deny,
    Mode,
    PermissionPolicy,
    Rule,
    never_ask,
)
from .call_facts import call_facts
from .call_rules import suggest_rule, what_would_allow, with_hook
from .context import ToolContext
from .core import AnyTool, Preview, ToolCall, ToolKind
from .hooks import HookCall, Hooks, PreResult, Rewrite
from .permission_hooks import HookAllowed, add_hook_rules, permission_answer, question_waits
from .question import Question
from .registry import ToolPool
from .scope import RuleGranted, RunScope
from .validation import invalid_args, validate


@dataclass(frozen=True, kw_only=True)
class ApprovalRequest(Question["Approval"]):
    """What the person is asked: which tool, one line, the effect's preview, why, and the rule 'always' would add.

    `tool_use_id` and `title` (the one line) come from `Question`.
    """

    tool: str
    input: dict[str, Any]
    preview: Preview
    reason: str
    suggested_rule: Rule
    #: What would let this call run without asking, checked against the policy: the suggested rule (None when
    #: it would not be enough) and the least permissive mode that would (None when no mode would).
    allowing_rule: Rule | None = None
    allowing_mode: Mode | None = None
    #: The tool's kind: an edit may be answered with "allow all edits in this run".
    kind: ToolKind = "other"
    #: The tool's own reason to ask (a look at a credential, Bash without its sandbox), which no rule lifts;
    #: a refusal where nobody can answer repeats it, with its own way out.
    own_reason: str = ""

    def how_to_allow(self) -> str:
        """The settings that would really allow this call, as the user would type them."""
        ways: list[str] = []
        if self.allowing_rule is not None:
            rule = self.allowing_rule
            ways.append(f"add the rule `%agent allow {rule}` or pass `--allow '{rule}'`")
        if self.allowing_mode is not None:
            ways.append(f"use `--mode {self.allowing_mode}`")
        if not ways:
            return f"no rule or mode allows it without asking ({self.reason}); only that setting's owner can change it"
        return " or ".join(ways)


#: A call's input replaced: its validated params and what hooks are told of it.
Rewritten = tuple[BaseModel, HookCall]


@dataclass(frozen=True, kw_only=True)
class Approve:
    always: bool = False
    #: "Always allow in this project": as `always`, and written to the project's settings.local.json.
    in_project: bool = False
    #: "Allow all edits in this run": this call, and every edit after it in this run, as acceptEdits would
    #: (ask rules, protected paths and deny rules still apply).
    edits_this_run: bool = False
    #: A PermissionRequest hook's `updatedInput`, validated and judged: the call runs with it.
    rewritten: Rewritten | None = None


@dataclass(frozen=True, kw_only=True)
class Reject:
    #: Sent to the model; empty means a plain "the user denied this".
    message: str = ""
    #: DENIED: the person said no; STALE_READ: they changed the cell the call was about while it waited.
    code: Literal["DENIED", "STALE_READ"] = "DENIED"


Approval = Approve | Reject
Approver = Callable[[ApprovalRequest], Awaitable[Approval]]


async def refuse_all(request: ApprovalRequest) -> Approval:
    """The approver when nobody can answer (headless): say which rule would allow it."""
    return Reject(
        message=f"no one is there to approve {request.tool} ({request.reason}); to allow it: "
        + request.how_to_allow()
    )


@dataclass(frozen=True, kw_only=True)
class Dispatched:
    """A result plus what the UI wants to know about how it came about."""

    result: ToolResult
    title: str
    kind: ToolKind
    decision: Decision | None
    duration: float


class Dispatcher:
    """The one gate of every tool call: pool → validation → hooks → permission → approval → run → hooks.

    One per run (the session makes it with the run's approver). `dispatch` never raises: an unknown tool,
    bad input, a denial or a tool's own exception all come back as an error `ToolResult` the model can act on.
    """

    def __init__(
        self,
        *,
        pool: ToolPool,
        policy: PermissionPolicy | None = None,
        hooks: Hooks | None = None,
        approver: Approver = refuse_all,
        secrets: SecretRegistry = REGISTRY,
        scope: RunScope | None = None,
    ) -> None:
        """`scope`: the run whose calls this dispatches (a session's run passes its own). Without one (a
        test's or a script's dispatcher), each call runs in its context's run, judged by `policy`."""
        if scope is not None and policy is not None:
            raise TypeError("pass the run's scope (which holds its policy) or a policy, not both")
        self.pool = pool
        self.scope = scope
        self._policy = policy or PermissionPolicy()
        self.hooks = hooks or Hooks()
        self.approver = approver
        #: Set by "allow all edits in this run": the rest of this run's edits run as in acceptEdits mode.
        self.edits_allowed = False
        #: Every result is masked with this before it becomes model input (or a card): one net under every tool.
        self.secrets = secrets

    @property
    def policy(self) -> PermissionPolicy:
        """The run's policy (its scope's), or the one this dispatcher was given."""
        return self.scope.policy if self.scope is not None else self._policy

    def tools(self) -> dict[str, AnyTool]:
        return self.pool.active()

    def is_read_only(self, name: str) -> bool:
        tool = self.tools().get(name)
        return tool is None or tool.read_only

    async def dispatch(
        self, call: ToolCall, ctx: ToolContext, *, on_running: Callable[[str], None] | None = None
    ) -> Dispatched:
        """Run the call through every check; the result's texts have every known secret masked."""
        dispatched = await self._dispatch(call, ctx, on_running)
        return dataclasses.replace(
            dispatched,
            result=mask_result(dispatched.result, self.secrets),
            title=self.secrets.mask(dispatched.title),
        )

    async def _dispatch(
        self, call: ToolCall, ctx: ToolContext, on_running: Callable[[str], None] | None
    ) -> Dispatched:
        started = time.monotonic()
        tools = self.tools()
        tool = tools.get(call.name)
        if tool is None:
            return Dispatched(
                result=self._not_offered(call.name, tools),
                title=call.name,
                kind="other",
                decision=None,
                duration=0.0,
            )
        run = self.scope or dataclasses.replace(ctx.run, policy=self._policy)
        ctx = ctx.for_call(run, call.id)
        title = tool.name
        decision: Decision | None = None
        try:
            result, title, decision = await self._checked_run(tool, call, ctx, on_running)
        except ToolError as exc:
            result = ToolResult.error(exc.code, exc.message)
        except Exception as exc:  # a tool bug must never kill the loop
            result = ToolResult.error("EXECUTION_ERROR", f"{tool.name} failed: {type(exc).__name__}: {exc}")
        return Dispatched(
            result=result, title=title, kind=tool.kind, decision=decision, duration=time.monotonic() - started
        )

    def _not_offered(self, name: str, tools: dict[str, AnyTool]) -> ToolResult:
        """A call to a tool that does not run now: one the model was shown that is denied or gone (refused with
        the reason: it stays declared in the conversation), else an unknown name."""
        reason = self.pool.unavailable(name)
        if reason is not None:
            denied, message = reason
            return ToolResult.error("DENIED" if denied else "NOT_AVAILABLE", message)
        names = ", ".join(sorted(tools)) or "none"
        return ToolResult.error("UNKNOWN_TOOL", f"there is no tool named '{name}'; available tools: {names}")

    async def _checked_run(
        self, tool: AnyTool, call: ToolCall, ctx: ToolContext, on_running: Callable[[str], None] | None
    ) -> tuple[ToolResult, str, Decision | None]:
        checked = await self._validated(tool, call, ctx)
        if isinstance(checked, ToolResult):
            return checked, tool.name, None
        params, subject, hook_call, verdict = checked
        title = tool.title(params, ctx)
        facts = call_facts(tool, params, ctx, subject)
        decision, own_reason = self._decide(tool, params, ctx, facts, verdict)
        if isinstance(decision, Deny):
            return ToolResult.error("DENIED", decision.message), title, decision
        if isinstance(decision, Ask):
            preview = await tool.preview(params, ctx)
            rule = suggest_rule(tool.name, subject, tool.rule_kind)
            allowing_rule, allowing_mode = what_would_allow(self.policy, facts, verdict, rule)
            if own_reason is not None:  # only bypassPermissions skips the tool's own question
                allowing_rule, allowing_mode = None, "bypassPermissions"
            request = ApprovalRequest(
                tool_use_id=call.id,
                tool=tool.name,
                title=title,
                input=hook_call.input,
                preview=preview,
                reason=decision.reason,
                suggested_rule=rule,
                allowing_rule=allowing_rule,
                allowing_mode=allowing_mode,
                kind=tool.kind,
                own_reason=own_reason or "",
            )
            answer = await self._hooks_answer(tool, request, decision, ctx) or await self.approver(request)
            if isinstance(answer, Approve) and answer.rewritten is not None:  # a hook's updatedInput, judged
                params, hook_call = answer.rewritten
                title = tool.title(params, ctx)
            if isinstance(answer, Reject):
                text = answer.message or "the user denied this call"
                return ToolResult.error(answer.code, f"{tool.name}: {text}"), title, Deny(message=text)
            if answer.always or answer.in_project:
                ctx.run.record(RuleGranted(rule, in_project=answer.in_project))
            if answer.edits_this_run:
                self.edits_allowed = True
            decision = Allow(reason="approved by the user")
        if current_stop().requested:  # stopped while it was asked about: it does not start now
            return ToolResult.error("INTERRUPTED", "not run: the user stopped the run"), title, decision
        if on_running is not None:
            on_running(title)
        await question_waits(self.hooks, tool.name)
        try:
            result = await tool.run(params, ctx)
        except ToolError as exc:  # the card keeps its one line (`Edit utils.py`), not the bare tool name
            result = ToolResult.error(exc.code, exc.message)
        result = await self.hooks.run_post(hook_call, result)  # an error result too (PostToolUseFailure)
        return result, title, decision

    async def _hooks_answer(
        self, tool: AnyTool, request: ApprovalRequest, asked: Ask, ctx: ToolContext
    ) -> Approval | None:
        """What PermissionRequest hooks answer for the user, or None to ask them; an allow's updatedInput is
        judged again, and its rules are added only when the call runs."""
        said = await permission_answer(
            self.hooks,
            tool=request.tool,
            tool_input=request.input,
            rule=request.suggested_rule,
            asked=asked,
            sensitive=bool(request.own_reason),
            cwd=str(ctx.sandbox.cwd),
        )
        if not isinstance(said, HookAllowed):
            return None if said is None else Reject(message=said.message)
        rewritten = None
        if said.updated_input is not None:
            rewritten = self._rechecked(tool, said.updated_input, ctx, request.tool_use_id)
            if isinstance(rewritten, str):
                return Reject(message=rewritten)
        add_hook_rules(ctx.run, said.updates)
        return Approve(rewritten=rewritten)

    async def _validated(
        self, tool: AnyTool, call: ToolCall, ctx: ToolContext
    ) -> ToolResult | tuple[BaseModel, str | None, HookCall, PreResult]:
        """The call's input validated, then the pre-tool hooks' verdict (a rewritten input validated again);
        an INVALID_ARGS result when either input is not valid."""
        if call.raw_input_error is not None:
            issue = Issue(path="/", message=call.raw_input_error, expected="a complete JSON object")
            return invalid_args(tool.name, (issue,))
        params = validate(tool.name, tool.Input, call.input)
        if isinstance(params, ToolResult):
            return params
        subject, hook_call = self._hook_call(tool, params, ctx, call.id)
        verdict = await self.hooks.run_pre(hook_call)
        if isinstance(verdict, Rewrite):
            params = validate(tool.name, tool.Input, verdict.input)
            if isinstance(params, ToolResult):
                return params
            subject, hook_call = self._hook_call(tool, params, ctx, call.id)
            verdict = verdict.then
        return params, subject, hook_call, verdict

    def _hook_call(
        self, tool: AnyTool, params: BaseModel, ctx: ToolContext, call_id: str
    ) -> tuple[str | None, HookCall]:
        subject = tool.rule_subject(params, ctx)
        kind = tool.rule_kind
        return subject, HookCall(
            tool=tool.name, input=_as_json(params), subject=subject, tool_use_id=call_id, rule_kind=kind
        )

    def _rechecked(
        self, tool: AnyTool, new_input: dict[str, Any], ctx: ToolContext, call_id: str
    ) -> Rewritten | str:
        """A PermissionRequest hook's `updatedInput`, validated and judged as the hook's allow is judged (as
        PreToolUse's is): the call's new params and hook call, or why it does not run."""
        params = validate(tool.name, tool.Input, new_input)
        if isinstance(params, ToolResult):
            return f"the PermissionRequest hook's updatedInput is not valid: {params.content}"
        subject, hook_call = self._hook_call(tool, params, ctx, call_id)
        facts = call_facts(tool, params, ctx, subject)
        decision, _ = self._decide(
            tool, params, ctx, facts, Allow(reason="allowed by a PermissionRequest hook")
        )
        if isinstance(decision, Allow):
            return params, hook_call
        why = decision.message if isinstance(decision, Deny) else decision.reason
        return f"not run with the PermissionRequest hook's updatedInput: {why}"

    def _decide(
        self, tool: AnyTool, params: BaseModel, ctx: ToolContext, facts: CallFacts, verdict: PreResult
    ) -> tuple[Decision, str | None]:
        """The policy's decision (with the hook's verdict), and the tool's own reason to ask when it applies
        (`sensitive`: a look at a credential, Bash without its sandbox — only bypassPermissions skips it). A call
        that asks anyway says that reason too, so no rule is suggested that would still ask."""
        mode = self.policy.mode
        decision = never_ask(mode, with_hook(verdict, self._policy_now().decide(facts)))
        if isinstance(decision, Deny) or mode == "bypassPermissions":
            return decision, None
        reason = tool.sensitive(params, ctx)
        if reason is None:
            return decision, None
        if isinstance(decision, Ask):
            return Ask(reason=f"{decision.reason}; {reason}", by=decision.by), reason
        return never_ask(mode, Ask(reason=reason, by="tool")), reason

    def _policy_now(self) -> PermissionPolicy:
        """The session's policy, or after "allow all edits in this run" the same with edits allowed as
        acceptEdits allows them (only over the default mode: plan refuses edits, the others allow them)."""
        if self.edits_allowed and self.policy.mode == "default":
            return dataclasses.replace(self.policy, mode="acceptEdits")
        return self.policy


def mask_result(result: ToolResult, secrets: SecretRegistry) -> ToolResult:
    """The result with every known secret masked in what the model and people read (content, summary, diff,
    the issues' received values)."""
    issues = tuple(
        dataclasses.replace(issue, received=issue.received and secrets.mask(issue.received))
        for issue in result.issues
    )
    return dataclasses.replace(
        result,
        content=secrets.mask(result.content),
        summary=secrets.mask(result.summary),
        diff=result.diff and secrets.mask(result.diff),
        issues=issues,
    )


def _as_json(params: BaseModel) -> dict[str, Any]:
    return params.model_dump(mode="json", by_alias=True, exclude_unset=False)
