"""What a run does when the API refuses or changes what it was sent: Anthropic's documented repairs.

- The prefix check failed (a thinking block's `system`, `tools` or earlier messages changed since it was made):
  send `thinking.block_binding.prefix_mismatch_behavior: "drop_block"` from now on, stored with the conversation
  (the API does not remember it between requests, and a saved conversation keeps the cause).
- A signature the API cannot use at all: leave every thinking block out, once.
- `input_transformations` listing dropped thinking blocks: said once in the cell, kept for `%agent status`.
Never "thinking is not supported": that misreading turned thinking off and failed every later run.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from .conversation import Conversation
from .events import Notice
from .turn import ThinkingRejected

log = logging.getLogger(__name__)


def repair_thinking(conversation: Conversation, rejected: ThinkingRejected) -> Notice:
    """Apply the repair for `rejected` to the conversation; the notice that says so."""
    log.warning("the API refused thinking blocks (%s): %s", rejected.kind, rejected.detail)
    if rejected.kind == "prefix" and conversation.told.binding is None:
        conversation.told.binding = "drop_block"
        conversation.state_unsaved = True
        why = "something before them changed since they were made"
    else:
        conversation.strip_thinking()
        why = "their signatures could not be used"
    return Notice(
        level="warning",
        message=f"the API refused the model's reasoning from earlier turns ({why}: {rejected.detail}); "
        "continuing without it — the rest of the conversation is intact",
    )


def dropped_notice(transformations: Sequence[dict[str, object]]) -> Notice | None:
    """A line for thinking blocks the API left out of a request (a model switch, the prefix check), if any."""
    dropped = [t for t in transformations if t.get("type") == "thinking_dropped"]
    if not dropped:
        return None
    reasons = sorted({str(t.get("reason")) for t in dropped})
    return Notice(
        level="info",
        message=f"the API left out {len(dropped)} earlier thinking block(s) of this conversation "
        f"({', '.join(reasons)}); the model continues without that reasoning",
    )
