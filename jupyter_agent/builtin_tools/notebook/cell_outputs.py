"""RunCode's capture, also kept as nbformat outputs, so RunCell can write what a cell produced back into it.

`CellOutputs` is RunCode's `OutputLog` (bounded text for the model, images aside) that additionally
records each write and display as an nbformat output — stdout and stderr text merged as a notebook merges
them (consecutive writes to one stream), rich bundles whole — up to a cap, since a notebook keeps what the
model never sees.
"""

from __future__ import annotations

import base64
from typing import Any

from ...masking import clip
from ..kernel.execution import Outcome
from ..kernel.output_log import OutputLog

#: Stream text kept in the cell; a runaway print loop should not make a notebook of gigabytes.
MAX_STREAM_CHARS = 1_000_000
_CUT_NOTE = "\n… [output cut: over {} characters] …\n"


def _jsonable(value: Any) -> Any:
    """Bundles from IPython's formatters may hold bytes (PNG); notebooks hold base64 text."""
    return base64.b64encode(value).decode("ascii") if isinstance(value, bytes) else value


class CellOutputs(OutputLog):
    def __init__(self, *, max_chars: int, max_image_bytes: int, execution_count: int | None) -> None:
        super().__init__(max_chars=max_chars, max_image_bytes=max_image_bytes)
        self.execution_count = execution_count
        self.outputs: list[dict[str, Any]] = []
        self._stream_chars = 0
        self._in_display = False

    def write(self, text: str, stream: str = "stdout") -> None:
        super().write(text, stream)
        if self._in_display or not text:
            return
        room = MAX_STREAM_CHARS - self._stream_chars
        if room <= 0:
            return
        kept = clip(text, room, marker=_CUT_NOTE.format(MAX_STREAM_CHARS))
        self._stream_chars += len(text)
        last = self.outputs[-1] if self.outputs else None
        name = "stderr" if stream == "stderr" else "stdout"
        if last is not None and last["output_type"] == "stream" and last["name"] == name:
            last["text"] += kept
        else:
            self.outputs.append({"output_type": "stream", "name": name, "text": kept})

    def display(self, data: dict[str, Any], *, label: str = "") -> None:
        self._in_display = True
        try:
            super().display(data, label=label)
        finally:
            self._in_display = False
        bundle = {str(mime): _jsonable(value) for mime, value in data.items()}
        if label == "Out:":
            self.outputs.append(
                {
                    "output_type": "execute_result",
                    "execution_count": self.execution_count,
                    "data": bundle,
                    "metadata": {},
                }
            )
        else:
            self.outputs.append({"output_type": "display_data", "data": bundle, "metadata": {}})

    def with_error(self, outcome: Outcome) -> list[dict[str, Any]]:
        """The outputs, plus the error output a notebook shows when the code raised."""
        if outcome.error is None:
            return list(self.outputs)
        ename, _, evalue = outcome.error.partition(": ")
        traceback = outcome.traceback.rstrip("\n").splitlines() or [outcome.error]
        return [
            *self.outputs,
            {"output_type": "error", "ename": ename, "evalue": evalue, "traceback": traceback},
        ]
