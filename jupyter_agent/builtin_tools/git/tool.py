"""Git: `git status`, `diff`, `log`, `show` and `blame` without Bash, read-only and confined to the roots.

The repository is found from a directory under the roots. When its work tree reaches above every root (a
notebook folder inside a bigger repository), each call is limited to that root's part of it: the paths
default to the root, and a path named in a revision (`HEAD:src/a.py`) must lie under a root too. A work tree
elsewhere (`core.worktree` pointing out of the roots) is refused. How git is kept from writing or running
the repository's configured programs is `runner.py`'s job; which arguments are accepted, `options.py`'s.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field

from ...base.errors import ToolError
from ...base.result import ToolResult
from ...base.sandbox import confine
from ...tools.context import ToolContext
from ...tools.core import READ_ONLY, Tool, ToolInput
from ..files.access import hidden_by_deny, model_path
from .options import GitCommand, check_args
from .runner import run_git, toplevel

DESCRIPTION = """\
Run a read-only git command: status, diff, log, show or blame, in the repository holding the working \
directory (or `repo`). Use it rather than Bash for these.
- args: options and revisions, e.g. log ["--oneline", "-n20"], diff ["--cached", "--stat"], \
show ["HEAD~1", "--stat"], show ["HEAD:src/app.py"], blame ["-L10,40"]. Only options that read are accepted; \
join a value to its option (-n20, --since=2.weeks, --format=%h %s).
- paths: files or directories to limit the command to (blame: the one file), under the allowed roots.
- Nothing is written, and programs the repository configures (pager, external diff, textconv, filters, \
fsmonitor, hooks) never run. Long output is cut (start and end kept): narrow it with paths or -n."""


class GitInput(ToolInput):
    command: GitCommand
    """The git subcommand: status, diff, log, show or blame."""
    args: list[str] = Field(default_factory=list)
    """Options and revisions, one per item: ["--oneline", "-n20"], ["HEAD~3..HEAD", "--stat"]."""
    paths: list[str] = Field(default_factory=list)
    """Files or directories to limit the command to (passed after `--`); blame needs exactly one file."""
    repo: str | None = None
    """A directory of the repository (default: the working directory)."""


class GitTool(Tool[GitInput]):
    name = "Git"
    description = DESCRIPTION
    kind = "read"
    annotations = READ_ONLY
    Input = GitInput
    rule_field = "command"
    rule_kind = "text"

    def title(self, params: GitInput, ctx: ToolContext) -> str:
        return " ".join(["git", params.command, *params.args, *params.paths])

    async def run(self, params: GitInput, ctx: ToolContext) -> ToolResult:
        options, revisions = check_args(params.command, params.args)
        if params.command == "blame" and len(params.paths) != 1:
            raise ToolError(
                "INVALID_ARGS", "git blame takes exactly one file in paths, e.g. paths ['src/app.py']"
            )
        directory = ctx.sandbox.confine(params.repo or ".")
        if not directory.is_dir():
            directory = directory.parent
        top = await toplevel(directory)
        limit = _limit(ctx, directory, top)
        for revision in revisions:
            _check_revision_path(ctx, revision, directory, top)
        paths = [self._path(ctx, given, top) for given in params.paths] or ([str(limit)] if limit else [])
        # A revision never starts with `-` (check_args), and where git knows it `--end-of-options` says so too.
        end = ["--end-of-options"] if params.command in ("diff", "log", "show") else []
        arguments = [*options, *end, *revisions, "--", *paths]
        result = await run_git(
            params.command, arguments, cwd=directory, max_chars=ctx.sandbox.limits.max_output_chars
        )
        if result.returncode not in (0, 1) or (result.returncode == 1 and result.stderr.strip()):
            raise ToolError(
                "EXECUTION_ERROR",
                f"git {params.command} failed (exit {result.returncode}): {result.stderr.strip()}",
            )
        text = result.stdout.rstrip("\n")
        where = model_path(ctx, directory)
        if not text:
            return ToolResult.ok(f"git {params.command} printed nothing in '{where}'.", summary="No output")
        lines = text.count("\n") + 1
        return ToolResult.ok(
            text, summary=f"git {params.command}: {lines} line" + ("" if lines == 1 else "s")
        )

    def _path(self, ctx: ToolContext, given: str, top: Path) -> str:
        real = ctx.sandbox.confine(given)
        shown = model_path(ctx, real)
        if hidden_by_deny(ctx, self.name, shown):
            raise ToolError("DENIED", f"a deny rule hides '{shown}'; git cannot show it either")
        if not (real == top or real.is_relative_to(top)):
            raise ToolError(
                "INVALID_ARGS", f"'{shown}' is outside the repository at '{model_path(ctx, top)}'"
            )
        return str(real)


def _limit(ctx: ToolContext, directory: Path, top: Path) -> Path | None:
    """None when the work tree lies under a root; the root to stay in when the work tree reaches above it."""
    if any(top == root or top.is_relative_to(root) for root in ctx.sandbox.roots):
        return None
    root = ctx.sandbox.root_of(directory)
    if root.is_relative_to(top):
        return root
    raise ToolError(
        "OUTSIDE_ROOTS",
        f"the work tree of the repository at '{model_path(ctx, directory)}' is '{top}', outside the allowed "
        "roots; git runs only on a repository under them",
    )


def _check_revision_path(ctx: ToolContext, revision: str, directory: Path, top: Path) -> None:
    """`HEAD:src/a.py` names a file: it must lie under a root, as a path would (`./`, `../` start at `repo`)."""
    if ":" not in revision:
        return
    commit, _, path = revision.partition(":")
    if not commit:
        raise ToolError(
            "INVALID_ARGS",
            f"the revision {revision!r} reads the index or searches messages; name a commit (HEAD:{path.lstrip(':/')})",
        )
    base = directory if path.startswith(("./", "../")) else top
    confine(Path(os.path.normpath(base / path)), ctx.sandbox.roots)
