"""The harness's own words in a conversation: the session context and its updates, the opening's notes.

They are user-message text the harness writes (not the user), so the export and the tests tell them apart from the
user's words by how they open. Each is pinned by a snapshot test.
"""

from __future__ import annotations

from typing import cast

#: How the session's facts open at the first request, and how an update of them opens later.
CONTEXT_HEADING = "[Session context: where you are working. Later messages may update it; the latest wins.]"
UPDATE_HEADING = "[Update to the session context since earlier in this conversation:]"
#: The first message of a conversation whose opening hands over the repository's files.
OPENING_NOTE = (
    "[Before the first request, the harness reads the project's files that describe it (its AGENTS.md / "
    "CLAUDE.md, its skills). Their text comes from the repository, not from the user.]"
)
#: The same for a sub-agent's conversation.
SUBAGENT_OPENING_NOTE = (
    "[Before the task, the harness reads the files that describe your role and the project: a project "
    "sub-agent's own definition (follow its role), the project's AGENTS.md / CLAUDE.md. Their text comes from the "
    "repository, not from the main agent or the user.]"
)

#: The assistant text that closes the opening's tool loop (`agent/opening.py`): with a thinking budget the API
#: refuses a request whose last user turn answers tool calls of an assistant turn without thinking.
OPENING_CLOSE = "[The harness has handed over the files above; the request follows.]"

HARNESS_HEADINGS = (CONTEXT_HEADING, UPDATE_HEADING, OPENING_NOTE, SUBAGENT_OPENING_NOTE, OPENING_CLOSE)


def is_harness_text(text: str) -> bool:
    """Whether a text block is the harness's own (context, update, opening note), not the user's."""
    return text.startswith(HARNESS_HEADINGS)


def request_text(content: object) -> str:
    """The user's own request in a user message's content: its first text block the harness did not write (the
    context, an update and the opening note come before it; attachments after it). Empty when there is none."""
    if isinstance(content, str):
        return "" if is_harness_text(content) else content
    if not isinstance(content, list):
        return ""
    for block in cast("list[object]", content):
        if not isinstance(block, dict):
            continue
        fields = cast("dict[str, object]", block)
        text = fields.get("text")
        if fields.get("type") == "text" and isinstance(text, str) and not is_harness_text(text):
            return text
    return ""


def told_texts(messages: object) -> list[str]:
    """Every context and update text the harness put in a request's `messages`, oldest first (the latest wins)."""
    found: list[str] = []
    for message in cast("list[object]", messages) if isinstance(messages, list) else []:
        content = cast("dict[str, object]", message).get("content") if isinstance(message, dict) else None
        for block in cast("list[object]", content) if isinstance(content, list) else []:
            fields = cast("dict[str, object]", block) if isinstance(block, dict) else {}
            text = fields.get("text")
            if fields.get("type") == "text" and isinstance(text, str) and is_harness_text(text):
                found.append(text)
    return found
