"""ExitPlanMode: in plan mode, present the plan for approval; approving switches the run's mode at once.
EnterPlanMode: the model asks to switch to plan mode; the call's approval is the user's answer."""

from __future__ import annotations

from pydantic import Field

from ...base.result import ToolResult
from ...permissions.modes import MODE_TEXTS, Mode, mode_line
from ...tools.context import ToolContext
from ...tools.core import READ_ONLY, Preview, Tool, ToolAnnotations, ToolInput
from ...tools.scope import ModeSwitched
from .asking import PlanApproval, PlanVerdict, ask_user

DESCRIPTION = """\
Use this in plan mode once your plan is ready, to present it to the user for approval. Only for planning \
work that changes files, the notebook or the kernel; not for research or questions. The user either approves \
(the mode switches and you carry the plan out at once) or asks you to keep planning, with feedback."""

_SWITCH: dict[PlanVerdict, Mode] = {"accept_edits": "acceptEdits", "keep_asking": "default"}


class ExitPlanModeInput(ToolInput):
    plan: str = Field(min_length=1)
    """The plan to approve, in Markdown: short, concrete steps."""


class ExitPlanMode(Tool[ExitPlanModeInput]):
    name = "ExitPlanMode"  # the mode table's EXIT_PLAN_TOOL (a test holds them equal)
    description = DESCRIPTION
    kind = "other"
    annotations = READ_ONLY
    Input = ExitPlanModeInput

    async def preview(self, params: ExitPlanModeInput, ctx: ToolContext) -> Preview:
        return Preview(kind="code", text=params.plan, language="markdown")

    async def run(self, params: ExitPlanModeInput, ctx: ToolContext) -> ToolResult:
        if ctx.policy.mode != "plan":
            return ToolResult.error(
                "NOT_AVAILABLE",
                f"ExitPlanMode only applies in plan mode and the mode is {ctx.policy.mode}; carry on without it",
            )
        request = PlanApproval(
            tool_use_id=ctx.tool_use_id, title="ExitPlanMode: approve the plan?", plan=params.plan
        )
        review = await ask_user(ctx, request)
        if review is None:
            return ToolResult.error(
                "DENIED",
                "no one can approve the plan here (no person at the notebook: nbclient, papermill); the mode stays "
                "plan. Give the plan as your answer; the user can carry it out with `%agent mode acceptEdits` "
                "and a new request",
                data={"mode": "plan"},
            )
        note = f' The user added: "{review.message}"' if review.message else ""
        if review.verdict == "keep_planning":
            return ToolResult.error(
                "DENIED",
                f"the user wants to keep planning; the mode stays plan.{note} Revise the plan and call "
                "ExitPlanMode again when it is ready",
                summary="keep planning",
                data={"mode": "plan"},
            )
        mode = _SWITCH[review.verdict]
        ctx.run.record(ModeSwitched(mode))
        return ToolResult.ok(
            f"The user approved your plan. The mode is now {mode}: {MODE_TEXTS[mode].runs}.{note} Carry out the plan now.",
            summary=f"plan approved · mode {mode}",
            data={"mode": mode},
        )


class EnterPlanModeInput(ToolInput):
    """No arguments: the user's approval is the answer."""


class EnterPlanMode(Tool[EnterPlanModeInput]):
    """Not read-only, so the Dispatcher asks the user (the approval at the cell) in every mode that asks; no one
    to ask (headless) refuses it with the way to plan anyway; an allow rule or bypassPermissions lets it in."""

    name = "EnterPlanMode"  # the mode table's ENTER_PLAN_TOOL (a test holds them equal)
    description = MODE_TEXTS["plan"].enter
    kind = "other"
    annotations = ToolAnnotations(read_only=False, destructive=False, idempotent=True)
    Input = EnterPlanModeInput

    def title(self, params: EnterPlanModeInput, ctx: ToolContext) -> str:
        return "EnterPlanMode: switch to plan mode?"

    async def run(self, params: EnterPlanModeInput, ctx: ToolContext) -> ToolResult:
        if ctx.policy.mode == "plan":
            return ToolResult.error(
                "NOT_AVAILABLE", f"the mode is plan already: {mode_line('plan', exit_plan=True)}"
            )
        ctx.run.record(ModeSwitched("plan"))
        return ToolResult.ok(
            f"The user switched to plan mode. The mode is now {mode_line('plan', exit_plan=True)}",
            summary="mode plan",
            data={"mode": "plan"},
        )
