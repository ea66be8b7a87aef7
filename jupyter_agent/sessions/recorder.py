"""What a live agent session writes to its file, as it goes: requests, conversation changes, run endings.

The file is created with the first record (a kernel that never runs the agent leaves nothing behind). A
failure to write (disk full, permissions) never stops a run: it is kept in `error` for the session to
report once, and the next write tries again.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from .store import FORMAT_VERSION, Record, SessionLog, new_session_id, now_iso, project_dir


class UnsavedSource(Protocol):
    """The conversation, as far as the recorder needs it (`Conversation.take_unsaved`)."""

    def take_unsaved(self) -> tuple[int, list[dict[str, Any]]]: ...


class SessionRecorder:
    def __init__(
        self,
        *,
        project: Path,
        notebook: str | None = None,
        root: Path | None = None,
        resumed_from: str | None = None,
    ) -> None:
        self.id = new_session_id()
        self.path = project_dir(project, root) / f"{self.id}.jsonl"
        self.project = project
        self.notebook = notebook
        self.resumed_from = resumed_from
        self.error: str | None = None
        self._log = SessionLog(self.path)
        self._started = False
        self._saved_len = 0

    @property
    def started(self) -> bool:
        """True once the file exists (the first record was written)."""
        return self._started

    def _write(self, *records: Record) -> None:
        batch = list(records)
        if not self._started:
            batch.insert(0, self._header())
        try:
            self._log.append(batch)
        except OSError as exc:
            self.error = f"SESSION_NOT_SAVED: writing {self.path} failed: {exc}"
            return
        self._started = True
        self.error = None

    def _header(self) -> Record:
        return {
            "type": "session",
            "version": FORMAT_VERSION,
            "id": self.id,
            "created": now_iso(),
            "project": str(self.project),
            "notebook": self.notebook,
            "resumed_from": self.resumed_from,
        }

    def request(self, run_id: int, text: str) -> None:
        self._write({"type": "request", "run_id": run_id, "text": text, "time": now_iso()})

    def sync(self, conversation: UnsavedSource) -> None:
        """Write what changed in the conversation since the last sync (nothing when nothing did)."""
        start, changed = conversation.take_unsaved()
        if start == self._saved_len and not changed:
            return
        self._saved_len = start + len(changed)
        self._write({"type": "messages", "start": start, "messages": changed})

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
