"""Older tool results cut to a stub (models that check no thinking prefix only: it rewrites earlier messages)."""

from __future__ import annotations

from ..base.json_values import is_object
from .message_store import Block

#: Characters of an older result kept when it is shortened.
STUB_HEAD = 300


def _result_text(block: Block) -> str:
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if is_object(b) and b.get("type") == "text")


def shortened_text(original: str, images: int = 0) -> str:
    head = original[:STUB_HEAD]
    removed = len(original) - len(head)
    pictures = f" and {images} image(s)" if images else ""
    return (
        f"[older tool result shortened to save context: {removed} characters{pictures} removed; "
        f"run the tool again if you need it. It began: {head}]"
    )


def stub(block: Block) -> Block:
    """The tool_result with its content cut to a short stub that says so (already-short results stay)."""
    text = _result_text(block)
    content = block.get("content", "")
    images = 0 if isinstance(content, str) else sum(1 for b in content if b.get("type") == "image")
    if (len(text) <= STUB_HEAD * 2 and not images) or text.startswith("[older tool result shortened"):
        return block
    return {**block, "content": [{"type": "text", "text": shortened_text(text, images)}]}
