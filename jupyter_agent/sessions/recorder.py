"""What a live agent session writes to its file, as it goes: requests, conversation changes, run endings.

The file is created with the first record (a kernel that never runs the agent leaves nothing behind). A
failure to write (disk full, a read-only data dir) never stops a run: it is kept in `error`, which the
session reports once (`take_warning`), and the next write tries again — with what failed: the small
records wait in `_pending`, and the conversation is marked unsaved from where the failed write started,
so the next write rewrites it from there and the file has no gap.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from ..base.errors import ToolError
from ..base.json_values import is_object
from .log import Record, SessionLog
from .store import FORMAT_VERSION, new_session_id, now_iso, project_dir
from .told_changes import told_changes


class UnsavedSource(Protocol):
    """The conversation, as far as the recorder needs it: its messages changed since the last save
    (`take_unsaved`, `mark_unsaved`), and its fixed prefix and what it told since (`take_state`)."""

    def take_unsaved(self) -> tuple[int, list[dict[str, Any]]]: ...

    def mark_unsaved(self, index: int) -> None: ...

    def take_state(self) -> tuple[dict[str, Any] | None, dict[str, Any]] | None: ...


class SessionRecorder:
    def __init__(
        self,
        *,
        project: Path,
        notebook: str | None = None,
        root: Path | None = None,
        resumed_from: str | None = None,
        base_messages: int = 0,
    ) -> None:
        """`resumed_from`, `base_messages`: this file continues that session, whose first `base_messages` messages
        (and prefix, and what it told) it does not repeat."""
        self.id = new_session_id()
        self.path = project_dir(project, root) / f"{self.id}.jsonl"
        self.project = project
        self.notebook = notebook
        self.resumed_from = resumed_from
        self.base_messages = base_messages
        #: The prefix last written (as JSON): a prefix record is written only when it changes.
        self._prefix_written: dict[str, Any] | None = None
        #: What was told as last written (whole or by its changes): later records hold only what changed.
        self._told_written: dict[str, Any] | None = None
        self.error: str | None = None
        self._warned = False
        self._log = SessionLog(self.path)
        self._started = False
        self._saved_len = base_messages
        #: Records whose write failed, written before the next ones.
        self._pending: list[Record] = []

    @property
    def started(self) -> bool:
        """True once the file exists (the first record was written)."""
        return self._started

    def _write(self, *records: Record) -> bool:
        batch = [*self._pending, *records]
        if not self._started:
            batch.insert(0, self._header())
        try:
            self._log.append(batch)
        except (OSError, ToolError) as exc:  # ToolError: the file became a link (`base.confined`)
            self.error = f"SESSION_NOT_SAVED: writing {self.path} failed: {exc}"
            self._pending = [r for r in batch if r["type"] not in ("session", "messages")]
            return False
        self._started = True
        self._pending = []
        self.error = None
        return True

    def take_warning(self) -> str | None:
        """The failure to report, once per session: later failures are not repeated after every run."""
        if self.error is None or self._warned:
            return None
        self._warned = True
        return (
            f"{self.error}; this session is not being saved until that is fixed (said once; each run tries "
            "again, and what was not saved is written then)"
        )

    def _header(self) -> Record:
        return {
            "type": "session",
            "version": FORMAT_VERSION,
            "id": self.id,
            "created": now_iso(),
            "project": str(self.project),
            "notebook": self.notebook,
            "resumed_from": self.resumed_from,
            "base_messages": self.base_messages,
        }

    def continues(self, prefix: dict[str, Any] | None, told: dict[str, Any] | None) -> None:
        """The resumed session's prefix and what it had told, which its file already holds (not written again:
        this file's records of what is told hold only what changed since)."""
        self._prefix_written = prefix
        self._told_written = told

    def request(self, run_id: int, text: str, message_start: tuple[int, int] | None = None) -> None:
        """`message_start`: where the request goes in the conversation (`Conversation.position`), so a
        resumed session can still rewind to before it."""
        record: Record = {"type": "request", "run_id": run_id, "text": text, "time": now_iso()}
        if message_start is not None:
            record["message_start"] = list(message_start)
        self._write(record)

    def rewound(self, *, to_run: int, message_start: tuple[int, int]) -> None:
        """`%agent rewind`: run `to_run` and later ones left the conversation (the next `messages` record
        holds the cut)."""
        self._write(
            {"type": "rewind", "to_run": to_run, "message_start": list(message_start), "time": now_iso()}
        )

    def sync(self, conversation: UnsavedSource) -> None:
        """Write what changed in the conversation since the last sync (nothing when nothing did): its prefix when
        it is new or redeclared, what it told since, and its messages."""
        records: list[Record] = []
        state = conversation.take_state()
        if state is not None:
            prefix, told = state
            if prefix is not None and prefix != self._prefix_written:
                records.append({"type": "prefix", **prefix})
                self._prefix_written = prefix
            if self._told_written is None:
                records.append({"type": "told", **told})
            elif changes := told_changes(self._told_written, told):
                records.append({"type": "told_changes", **changes})
            self._told_written = {k: dict(v) if is_object(v) else v for k, v in told.items()}  # as it is now
        start, changed = conversation.take_unsaved()
        if start != self._saved_len or changed:
            records.append({"type": "messages", "start": start, "messages": changed})
        if not records:
            return
        if self._write(*records):
            if start != self._saved_len or changed:
                self._saved_len = start + len(changed)
        else:
            conversation.mark_unsaved(start)  # the next sync writes these again, from `start`
            if state is not None:
                self._prefix_written = None
                self._told_written = None  # the next record of what is told is whole again

    def run_finished(
        self,
        *,
        run_id: int,
        model: str,
        reason: str,
        turns: int,
        cost_usd: float,
        usage: Mapping[str, int],
    ) -> None:
        self._write(
            {
                "type": "run",
                "run_id": run_id,
                "model": model,
                "reason": reason,
                "turns": turns,
                "cost_usd": cost_usd,
                "usage": dict(usage),
                "time": now_iso(),
            }
        )

    def compacted(self, *, run_id: int, tokens_before: int, summary_chars: int) -> None:
        self._write(
            {
                "type": "compaction",
                "run_id": run_id,
                "tokens_before": tokens_before,
                "summary_chars": summary_chars,
                "time": now_iso(),
            }
        )
