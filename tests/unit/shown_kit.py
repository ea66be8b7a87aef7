"""What a person (or a saved notebook) could see of the UI: every widget built and every message its comm sent,
every display and every terminal line — and the check that no piece of a secret is in it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import comm
import pytest
from comm import DummyComm
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
from ipywidgets import Widget
from traitlets.config import Config


@dataclass
class Shown:
    """Everything that left the kernel (or went to the terminal) while it was watched."""

    widgets: list[Any] = field(default_factory=list[Any])
    messages: list[Any] = field(default_factory=list[Any])
    outputs: list[Any] = field(default_factory=list[Any])
    stdout: str = ""

    def text(self) -> str:
        """One string of it all: the comm's messages, each widget's state and repr as the kernel would send
        them now, the notebook's saved widget state, the displays and the terminal."""
        parts = [json.dumps(self.messages, default=str), json.dumps(self.outputs, default=str), self.stdout]
        open_ones = [widget for widget in self.widgets if widget.comm is not None]  # a closed one's last
        parts += [repr(widget) for widget in self.widgets]  # state is in the messages
        parts += [json.dumps(widget.get_state(), default=str) for widget in open_ones]
        parts.append(json.dumps(Widget.get_manager_state(widgets=open_ones), default=str))
        everything = "\n".join(parts)
        return everything + "\n" + re.sub(r"<[^>]*>", "", everything)  # and as read: markup split nothing


class _RecordingComm(DummyComm):
    sent: list[Any]

    def publish_msg(
        self, msg_type: str, data: Any = None, metadata: Any = None, buffers: Any = None, **keys: Any
    ) -> None:
        type(self).sent.append({"type": msg_type, "data": data})


@contextmanager
def watching(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Shown]:
    """An IPython shell whose displays, widget comms and stdout are all recorded into the `Shown` yielded."""
    shown = Shown()
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.setattr(_RecordingComm, "sent", shown.messages, raising=False)
    monkeypatch.setattr(comm, "create_comm", _RecordingComm)
    monkeypatch.setattr(Widget, "_widget_construction_callback", shown.widgets.append)
    config = Config()
    config.HistoryManager.enabled = False
    InteractiveShell.instance(config=config)
    try:
        with capture_output() as captured:
            yield shown
        shown.outputs.extend(output.data for output in captured.outputs)
        shown.stdout = captured.stdout
    finally:
        InteractiveShell.clear_instance()


def assert_no_part_of(secret: str, text: str) -> None:
    """Not the secret, nor any run of 8 of its characters, forwards or reversed (what masking promises)."""
    for start in range(len(secret) - 7):
        for run in (secret[start : start + 8], secret[::-1][start : start + 8]):
            assert run not in text, (
                f"{run!r} of the secret is shown: …{text[max(text.find(run) - 80, 0) :][:160]}…"
            )
