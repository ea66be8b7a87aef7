"""RunCode: run Python in the user's kernel like a cell, and show the model what it printed and displayed.

The code runs on the kernel's main thread (through the `main_thread` service), in the user's namespace,
so what it defines stays there for the user and for later calls. It asks first by default.
"""

from __future__ import annotations

import asyncio
import dataclasses

from pydantic import Field

from ...base.errors import ToolError
from ...base.result import ToolResult
from ...base.stopping import current_stop
from ...masking import cap_text, clip, shorten
from ...tools.context import ToolContext
from ...tools.core import Preview, Tool, ToolAnnotations, ToolInput
from .execution import CodeRun, Outcome
from .journal.calls import call_note, watch_call
from .journal.notes import result_note
from .main_thread import MainThread, main_thread_of
from .variables import user_namespace

#: How long to keep waiting after the timeout for the stop exception to take effect.
STOP_GRACE_SECONDS = 5.0


class RunCodeInput(ToolInput):
    code: str
    """Python code to run in the user's kernel, like a notebook cell: it sees and changes the user's variables, IPython syntax (%magic, !command) works, and the value of a last expression is shown."""
    timeout: int | None = Field(default=None, ge=1, le=600_000)
    """Milliseconds before the code is stopped; default 120000 (2 minutes), max 600000 (10 minutes)."""


def _lines(text: str) -> str:
    count = len(text.splitlines())
    return f"{count} line{'s' if count != 1 else ''}"


async def run_on_main(main: MainThread, job: CodeRun, *, seconds: float, what: str) -> Outcome:
    """Run `job` on the kernel's main thread. The user's Interrupt keeps what ran before it; code stuck where
    Python cannot interrupt it is TIMEOUT, naming `what` ("the code", "cell 'ab12'").

    Interrupt during the code raises KeyboardInterrupt in it and stops the run: the result comes back either
    as that exception or — when the run's cancellation arrives with it — as a cancellation after the code
    ended. Either way the outcome (output up to the interrupt) is the tool's result, marked INTERRUPTED, and
    the run's stop signal ends the run right after it."""
    try:
        return await main.call(job.run, timeout=seconds + STOP_GRACE_SECONDS)
    except KeyboardInterrupt:  # the user pressed Interrupt: the UI thread stops the run; report what ran
        return job.outcome or Outcome(output="", images=(), error="KeyboardInterrupt", interrupted=True)
    except asyncio.CancelledError:
        if job.outcome is None or not current_stop().requested:
            raise
        return job.outcome
    except TimeoutError:
        raise ToolError(
            "TIMEOUT",
            f"{what} did not finish in {seconds:g} s and could not be stopped: it is blocked in a call "
            "Python cannot interrupt (a long sleep, I/O, a C extension) and is still running in the kernel; "
            "ask the user to press Interrupt (■)",
        ) from None


def outcome_result(outcome: Outcome, *, seconds: float, max_chars: int) -> ToolResult:
    """The model-facing result: output in order, then the traceback; images attached."""
    output = outcome.output.rstrip("\n")
    images = outcome.images
    attached = f", {len(images)} image{'s' if len(images) != 1 else ''}" if images else ""
    if outcome.error is None:
        summary = f"{_lines(output)} of output{attached}" if output else f"no output{attached}"
        return ToolResult.ok(cap_text(output or "(no output)", max_chars), summary=summary, images=images)
    before = f"\nOutput before {{}}:\n{output}" if output else ""
    if outcome.not_run:  # the journal's copies were stopped or broke: nothing of the code ran
        code = "TIMEOUT" if outcome.timed_out else "INTERRUPTED" if outcome.interrupted else "EXECUTION_ERROR"
        message = f"the code did not run: {outcome.not_run}" + before.format("that")
        return ToolResult.error(code, cap_text(message, max_chars), images=images)
    if outcome.timed_out:
        message = (
            f"the code did not finish in {seconds:g} s and was stopped by a CodeTimeout exception; what it "
            "assigned before that stays in the namespace"
            + before.format("the stop")
            + "\n"
            + outcome.traceback
        )
        return ToolResult.error("TIMEOUT", cap_text(message.rstrip(), max_chars), images=images)
    if outcome.interrupted:
        message = "the user interrupted the code (KeyboardInterrupt)" + before.format("the interrupt")
        return ToolResult.error(
            "INTERRUPTED", cap_text(message, max_chars), images=images, data={"interrupted": True}
        )
    message = f"the code raised {outcome.error}" + before.format("the error") + "\n" + outcome.traceback
    return ToolResult.error(
        "EXECUTION_ERROR",
        cap_text(message.rstrip(), max_chars),
        images=images,
        summary=clip(outcome.error, 100, marker=""),
    )


class RunCode(Tool[RunCodeInput]):
    name = "RunCode"
    description = (
        "Run Python code in the user's live Jupyter kernel, like running a notebook cell: it uses and changes "
        "the user's variables and imports. Returns what it printed (stdout and stderr, in order), displayed "
        "outputs (text, and images such as plots as image blocks), the value of the last expression, and the "
        "traceback if it raised. Use it to check data, try a fix, or compute something; prefer Inspect and "
        "ListVariables for just looking. The user is asked before it runs unless a rule allows it. "
        "Top-level `await` is not supported."
    )
    kind = "execute"
    annotations = ToolAnnotations(read_only=False, destructive=True)
    streamed_field = "code"
    Input = RunCodeInput

    def title(self, params: RunCodeInput, ctx: ToolContext) -> str:
        first = next((line.strip() for line in params.code.splitlines() if line.strip()), "")
        first = shorten(first, 60)
        return f"RunCode {first}".rstrip()

    async def preview(self, params: RunCodeInput, ctx: ToolContext) -> Preview:
        return Preview(kind="code", text=params.code, language="python", note=call_note(ctx, [params.code]))

    async def run(self, params: RunCodeInput, ctx: ToolContext) -> ToolResult:
        main = main_thread_of(ctx, self.name)
        namespace = user_namespace(ctx, self.name)
        limits = ctx.sandbox.limits
        wanted = params.timeout / 1000 if params.timeout is not None else limits.default_timeout
        seconds = min(wanted, limits.max_timeout)
        watch = watch_call(ctx, namespace, self.name)
        job = CodeRun(
            params.code,
            namespace,
            shell=ctx.services.shell,
            timeout=seconds,
            max_chars=limits.max_code_output_chars,
            max_image_bytes=limits.max_image_bytes,
            reraise_interrupt=True,
            watch=watch,
        )
        outcome = await run_on_main(main, job, seconds=seconds, what="the code")
        result = outcome_result(outcome, seconds=seconds, max_chars=limits.max_output_chars)
        return with_kernel_note(result, result_note(watch.step, watch.failure))


def with_kernel_note(result: ToolResult, note: str) -> ToolResult:
    """The result, followed by what the code changed in the kernel's variables (the kernel journal's line)."""
    return dataclasses.replace(result, content=result.content + note) if note else result
