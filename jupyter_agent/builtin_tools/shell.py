"""Bash: run a shell command in the working directory — off unless enabled, and it asks unless a rule allows.

The command runs as `/bin/bash -c command` in its own process group (run_process): on timeout the whole
group gets SIGTERM, then SIGKILL, so `make &` or a pipeline leaves nothing behind. Output is capped, head
and tail kept. The environment is the kernel's minus credentials (see `scrubbed_environment`): a command
the model wrote should not be able to read the API key the agent itself uses. Where bubblewrap works, the
command also runs in an OS sandbox (bubblewrap.py): the kernel's process and start-up environment out of
sight, only the roots writable, no network unless `bash_network`; elsewhere every command asks and the approval
says `unsandboxed` — an allow rule does not run it unless `AgentMagics.bash_sandbox = "off"`.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Collection, Mapping

from pydantic import Field

from ..base.result import ToolResult
from ..masking import register, scrubbed_environ
from ..permissions.bubblewrap import check_sandbox
from ..permissions.process import ProcessResult, run_process
from ..permissions.sandbox_guard import guarded, remove_new_startup_files, removed_note, startup_files
from ..tools.context import ToolContext
from ..tools.core import Preview, Tool, ToolAnnotations, ToolInput


def scrubbed_environment(environ: Mapping[str, str], *, keep: Collection[str] = ()) -> dict[str, str]:
    """The environment without credentials, as the secret registry defines them (`masking.scrubbed_environ`)."""
    return scrubbed_environ(environ, keep=keep)


class BashInput(ToolInput):
    command: str
    """The command, run with /bin/bash -c in the working directory."""
    timeout: int | None = Field(default=None, ge=1, le=600_000)
    """Milliseconds before the command and everything it started are killed; default 120000 (2 minutes), max 600000 (10 minutes)."""
    description: str | None = None
    """What the command does in 5–10 words, shown to the user next to it (e.g. "List files in src")."""
    run_in_background: bool = False
    """Start it in the background and return at once with its id (bash_1, …); no timeout applies."""


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def _body(result: ProcessResult) -> str:
    out, err = result.stdout.rstrip("\n"), result.stderr.rstrip("\n")
    if err:
        out = f"{out}\n[stderr]\n{err}" if out else f"[stderr]\n{err}"
    return out


def process_result(result: ProcessResult, *, seconds: float) -> ToolResult:
    """Exit 0 is a success; a non-zero exit, a signal or a timeout is an error that still carries the output."""
    body = _body(result)
    lines = len(body.splitlines())
    if result.timed_out:
        message = (
            f"the command did not finish in {seconds:g} s and was killed, with every process it started"
            + (f"; output before that:\n{body}" if body else "")
        )
        return ToolResult.error("TIMEOUT", message, summary=f"timed out after {seconds:g} s")
    code = result.returncode
    if code == 0:
        return ToolResult.ok(body or "(no output)", summary=f"exit 0 · {lines} lines")
    what = (
        f"was killed by {_signal_name(code)}" if code is not None and code < 0 else f"exited with code {code}"
    )
    return ToolResult.error(
        "EXECUTION_ERROR", f"the command {what}" + (f"\n{body}" if body else ""), summary=f"command {what}"
    )


class BashTool(Tool[BashInput]):
    name = "Bash"
    description = (
        "Run a bash command in the working directory and return its output (stdout, then stderr) and exit "
        "status. Each call is a fresh shell: `cd` and variables do not carry over. The command and every "
        "process it starts are killed at the timeout (default 2 minutes, `timeout` in milliseconds, max 10 "
        "minutes); long output is cut in the middle. Credentials (ANTHROPIC_*, *_API_KEY, *_TOKEN, …) are "
        "not in its environment. The user is asked before each command unless a rule allows it. Prefer "
        "Read, Grep and Glob for reading and searching files. For a long-running command (a server, a "
        "watcher, a long job) set run_in_background: it returns at once with an id for BashOutput and KillShell."
    )
    kind = "execute"
    annotations = ToolAnnotations(read_only=False, destructive=True, open_world=True)
    Input = BashInput
    rule_field = "command"
    rule_kind = "command"

    def __init__(self, *, keep_env: Collection[str] = (), shell: str = "/bin/bash") -> None:
        self.keep_env = frozenset(keep_env)
        self.shell = shell

    def sensitive(self, params: BashInput, ctx: ToolContext) -> str | None:
        """Fail closed without the OS sandbox: a command that would run unsandboxed asks, even under an allow rule,
        unless the user set `bash_sandbox = "off"` (only bypassPermissions skips it too)."""
        return check_sandbox().unsandboxed_reason(required=ctx.sandbox.bash_sandbox == "required")

    async def preview(self, params: BashInput, ctx: ToolContext) -> Preview:
        text = f"# {params.description}\n{params.command}" if params.description else params.command
        check = await asyncio.to_thread(check_sandbox)
        if check.bubblewrap is None:  # the person approving should know nothing fences this command in
            text = f"# {check.describe(required=ctx.sandbox.bash_sandbox == 'required')}\n{text}"
        return Preview(kind="code", text=text, language="bash")

    async def run(self, params: BashInput, ctx: ToolContext) -> ToolResult:
        sandbox = ctx.sandbox
        limits = sandbox.limits
        wanted = params.timeout / 1000 if params.timeout is not None else limits.default_timeout
        seconds = min(wanted, limits.max_timeout)
        for (
            name
        ) in self.keep_env:  # given to the command, so masked wherever its output goes, whatever its name
            register(name, os.environ.get(name))
        env = {**scrubbed_environment(os.environ, keep=self.keep_env), **dict(sandbox.command_env)}
        argv = [self.shell, "-c", params.command]
        bubblewrap = (await asyncio.to_thread(check_sandbox)).bubblewrap
        roots = tuple(dict.fromkeys((*sandbox.roots, sandbox.cwd)))
        before = await asyncio.to_thread(startup_files, roots)
        if bubblewrap is not None:
            guard = await asyncio.to_thread(guarded, sandbox.roots, protected=ctx.policy.protected)
            argv = bubblewrap.wrap(
                argv, writable=sandbox.roots, cwd=sandbox.cwd, env=env, network=sandbox.network, guard=guard
            )
        if params.run_in_background:
            from .jobs import background_jobs

            job = background_jobs(ctx).start(
                params.command, argv, cwd=sandbox.cwd, env=env, roots=(roots, before)
            )
            return ToolResult.ok(
                f"Started in the background as {job.id}. Read its output with BashOutput (bash_id "
                f"'{job.id}'); stop it with KillShell (shell_id '{job.id}').",
                summary=f"background job {job.id}",
            )
        result = await run_process(
            argv, cwd=sandbox.cwd, timeout=seconds, env=env, max_output_chars=limits.max_output_chars
        )
        removed = await asyncio.to_thread(remove_new_startup_files, roots, before)
        outcome = process_result(result, seconds=seconds)
        if not removed:
            return outcome
        return ToolResult.error(
            "PROTECTED_PATH",
            f"{outcome.content}\n\n{removed_note(removed)}",
            summary="removed kernel start-up files",
        )


def bash_tool(*, keep_env: Collection[str] = ()) -> BashTool:
    """The Bash tool, for sessions that enable it (`enable_bash` or `--allow Bash`); not in kernel_tools().

    `keep_env` names variables to pass through even though they look like credentials (e.g. GITHUB_TOKEN
    for `gh`).
    """
    return BashTool(keep_env=keep_env)
