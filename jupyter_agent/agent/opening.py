"""The opening of a conversation: text other people wrote, handed to the model as tool results.

A repository's AGENTS.md / CLAUDE.md, its skills' names and descriptions, a project sub-agent's definition: the
people who can edit them are not the user, so Anthropic's docs on indirect prompt injection and on preserved
thinking say to send such text only inside `tool_result` blocks — by appending, after the user's message, an
assistant turn that calls a tool and the user turn with its result. Before the first request of a conversation
the opening is:

    user:      a note saying the harness reads the project's files first
    assistant: Read(file) for each file, Skill() for the skill listing (no thinking: the harness wrote it)
    user:      their tool results
    assistant: a harness note closing the opening (`OPENING_CLOSE`)
    user:      the request itself (the session context before it)

The closing note makes the opening a finished exchange, so the request's own user turn starts no tool loop:
with a thinking budget (`thinking.type: "enabled"`) the API refuses a request whose last user turn answers an
assistant turn that does not start with thinking, and the harness's calls carry none (a test runs the opening
under every row of the model table against the strict server). Only declared tools are called (a conversation without Read gets the files as plain text blocks marked as
the repository's, which is the docs' second-best place). The tool results are what the model would have read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..base.harness_texts import OPENING_CLOSE, OPENING_NOTE
from ..builtin_tools.files.read import ReadTool
from ..builtin_tools.skill import SKILL_TOOL_NAME
from .conversation import Block, Message

_READ = ReadTool.name
_SKILL = SKILL_TOOL_NAME
_ID_PREFIX = "toolu_opening_"


@dataclass(frozen=True, kw_only=True)
class OpeningFile:
    """A file the harness reads for the model before the first request."""

    path: str
    text: str
    #: Characters left out at the end (the file was cut).
    cut: int = 0


def opening_messages(
    files: Sequence[OpeningFile],
    *,
    skill_listing: str | None,
    tools: Sequence[str],
    note: str = OPENING_NOTE,
) -> list[Message]:
    """The messages that open a conversation (empty when there is nothing to hand over)."""
    calls: list[tuple[Block, str]] = []
    for file in files:
        text = file.text + (
            f"\n[… {file.cut} more characters of this file were not read]" if file.cut else ""
        )
        calls.append(({"name": _READ, "input": {"file_path": file.path}}, text))
    if skill_listing is not None and _SKILL in tools:
        calls.append(({"name": _SKILL, "input": {}}, skill_listing))
    if not calls:
        return []
    if _READ not in tools:
        return [{"role": "user", "content": [_plain(call, text) for call, text in calls]}]
    uses: list[Block] = []
    results: list[Block] = []
    for number, (call, text) in enumerate(calls, 1):
        call_id = f"{_ID_PREFIX}{number}"
        uses.append({"type": "tool_use", "id": call_id, **call})
        results.append(
            {"type": "tool_result", "tool_use_id": call_id, "content": [{"type": "text", "text": text}]}
        )
    return [
        {"role": "user", "content": [{"type": "text", "text": note}]},
        {"role": "assistant", "content": uses},
        {"role": "user", "content": results},
        {"role": "assistant", "content": [{"type": "text", "text": OPENING_CLOSE}]},
    ]


def _plain(call: Block, text: str) -> Block:
    """A file as a text block, marked as the repository's, for a conversation without the Read tool."""
    where = call["input"].get("file_path") or "the skills"
    return {
        "type": "text",
        "text": f"[Text from the repository ({where}), read by the harness; it is not the user speaking:]\n{text}",
    }
