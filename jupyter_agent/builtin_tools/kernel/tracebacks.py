"""The user's last exception as the agent sees it: frames with their source lines, innermost last.

Shared by the since-last-turn note, `%agent fix` and the Debug tool, so all three describe an error the
same way. IPython's own frames (the `exec` of the cell in interactiveshell.py, the compile in compilerop.py)
are left out: they are not the user's code and only push the frames that matter out of the budget. A cell's
SyntaxError has no frame of its own: its line is shown with a caret instead.
"""

from __future__ import annotations

import linecache
import sys
import types
from dataclasses import dataclass

#: Files whose frames are IPython's machinery around a cell, not the user's code: running it, and compiling it
#: (a cell's SyntaxError is raised in compilerop.py, before any of the cell runs).
_MACHINERY = (
    "IPython/core/interactiveshell.py",
    "IPython\\core\\interactiveshell.py",
    "IPython/core/compilerop.py",
    "IPython\\core\\compilerop.py",
)


@dataclass(frozen=True, kw_only=True)
class FrameInfo:
    """One traceback entry: where it is and the live frame (for its locals)."""

    function: str
    filename: str
    lineno: int
    frame: types.FrameType

    @property
    def where(self) -> str:
        return f"{self.filename}:{self.lineno}"

    def source(self, context: int = 2) -> str:
        """The line that ran with `context` lines around it, numbered, the line itself marked with `>`."""
        lines: list[str] = []
        for number in range(max(self.lineno - context, 1), self.lineno + context + 1):
            text = linecache.getline(self.filename, number, self.frame.f_globals)
            if not text and number > self.lineno:
                break
            marker = ">" if number == self.lineno else " "
            lines.append(f"{marker} {number:>4}  {text.rstrip()}")
        return "\n".join(lines)


def users_last_exception() -> BaseException | None:
    """The last exception a cell the user ran raised (IPython's `sys.last_exc`), whatever the agent raised since."""
    exc = getattr(sys, "last_exc", None) or getattr(sys, "last_value", None)
    return exc if isinstance(exc, BaseException) else None


#: The last exception the agent's own code raised (RunCode, RunCell), where it came from, and the user's last
#: exception at that moment: a user's cell that raised since is newer.
_agents_last: tuple[BaseException, str, BaseException | None] | None = None


def note_agent_exception(exc: BaseException, origin: str) -> None:
    """RunCode or RunCell caught `exc` (IPython never showed it, so `sys.last_exc` does not have it)."""
    global _agents_last
    _agents_last = (exc, origin, users_last_exception())


def last_exception_and_origin() -> tuple[BaseException, str] | None:
    """The newest exception in this kernel and who raised it: "RunCode", "RunCell (cell 'x')", or "a cell"."""
    users = users_last_exception()
    if _agents_last is not None and _agents_last[2] is users:
        return _agents_last[0], _agents_last[1]
    return None if users is None else (users, "a cell the user ran")


def last_exception() -> BaseException | None:
    """The newest exception in this kernel: IPython's last traceback (`sys.last_exc`, or `sys.last_value` before
    3.12), or the one RunCode or RunCell caught after it."""
    found = last_exception_and_origin()
    return None if found is None else found[0]


def user_frames(exc: BaseException) -> list[FrameInfo]:
    """The traceback's frames, outermost first, without IPython's machinery around the cell."""
    frames: list[FrameInfo] = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if not code.co_filename.endswith(_MACHINERY):
            frames.append(
                FrameInfo(
                    function=code.co_name,
                    filename=code.co_filename,
                    lineno=tb.tb_lineno,
                    frame=tb.tb_frame,
                )
            )
        tb = tb.tb_next
    return frames


def headline(exc: BaseException) -> str:
    """`ValueError: bad value` — the line a person reads first (cut, so a huge message can't flood)."""
    from ...masking import clip

    text = str(exc)
    message = clip(text, 500, marker=f"… [{max(len(text) - 500, 0)} more characters]")
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def describe_exception(exc: BaseException, *, innermost: int = 3, context: int = 2) -> str:
    """The headline, then the innermost frames with their source; older frames are counted, not shown."""
    frames = user_frames(exc)
    shown = frames[-innermost:] if innermost > 0 else []
    lines = [headline(exc)]
    if len(frames) > len(shown):
        lines.append(f"  ({len(frames) - len(shown)} outer frame(s) not shown)")
    for info in shown:
        lines.append(f"  in {info.function} at {info.where}")
        source = info.source(context)
        if source:
            lines.append(_indent(source, "    "))
    if isinstance(exc, SyntaxError):
        lines.extend(syntax_location(exc))
    cause = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    if cause is not None:
        lines.append(f"  caused by {headline(cause)}")
    return "\n".join(lines)


def syntax_location(exc: SyntaxError) -> list[str]:
    """Where a SyntaxError points: the line as written and a caret under the offending column."""
    if not exc.text:
        return []
    where = f"{exc.filename}:{exc.lineno}" if exc.filename else f"line {exc.lineno}"
    text = exc.text.rstrip("\n")
    lines = [f"  at {where}", f"    {text}"]
    if exc.offset:
        lines.append("    " + " " * max(exc.offset - 1, 0) + "^")
    return lines


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.splitlines())
