"""`%agent verify [PATH] [--timeout SECONDS] [--until CELL_ID]`: the words parsed, the check run on the worker."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .command_error import CommandError

if TYPE_CHECKING:
    from .kernel_agent import KernelAgent


def verify_arguments(args: list[str]) -> tuple[str | None, int | None, str | None]:
    """`[PATH] [--timeout SECONDS] [--until CELL_ID]` → (path, timeout, until); a mistake is a CommandError."""
    path: str | None = None
    timeout: int | None = None
    until: str | None = None
    words = iter(args)
    for word in words:
        if word in ("--timeout", "--until"):
            value = next(words, None)
            if value is None:
                raise CommandError(
                    f"%agent verify: {word} needs a value, e.g. {word} {'60' if word == '--timeout' else 'ab12'}"
                )
            if word == "--until":
                until = value
                continue
            if not value.isdigit() or not 1 <= int(value) <= 3600:
                raise CommandError(
                    f"%agent verify: --timeout takes whole seconds from 1 to 3600, not {value!r}"
                )
            timeout = int(value)
        elif word.startswith("-") or path is not None:
            raise CommandError(
                f"%agent verify: unexpected {word!r}; usage: %agent verify [PATH] [--timeout SECONDS] [--until CELL_ID]"
            )
        else:
            path = word
    return path, timeout, until


def verify_command(agent: KernelAgent, args: list[str]) -> str:
    """`%agent verify`: the notebook's cells, top to bottom, in a fresh kernel; the report as text."""
    from ..base.errors import ToolError
    from ..builtin_tools.verify import verify_notebook

    path, timeout, until = verify_arguments(args)
    ctx = agent.current_session().ctx
    try:
        checked = agent.run_blocking(
            verify_notebook(ctx, notebook_path=path, timeout=timeout, until_cell_id=until)
        )
    except ToolError as exc:
        raise CommandError(f"%agent verify: {exc.code}: {exc.message}") from None
    return checked.text()
