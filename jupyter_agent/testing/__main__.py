"""`python -m jupyter_agent.testing --script script.json`: the scripted server as its own process.

For tests whose client lives in another process (JupyterLab, a kernel): start this, read the first
stdout line `URL http://127.0.0.1:PORT`, point `ANTHROPIC_BASE_URL` at it, kill it when done. It is strict like
`ScriptedServer` (`--lenient` turns the API's request rules off); its thinking-block signatures use a key of its
own unless `--signing-key` gives one.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from .script_json import ScriptFormatError, load_script
from .server import RecordedRequest, ScriptedServer


class _Stopped(Exception):
    """Raised by the SIGTERM/SIGINT handler to leave the wait and stop the server cleanly."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m jupyter_agent.testing",
        description="Serve the Anthropic Messages API from a JSON script (see docs/testing.md).",
    )
    parser.add_argument(
        "--script", required=True, type=Path, help="JSON script: a list of turns or {'turns': [...]}"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to bind (default 0: a free port)")
    parser.add_argument("--record", type=Path, help="append every request as one JSON line to this file")
    parser.add_argument(
        "--signing-key",
        type=bytes.fromhex,
        help="hex key for thinking-block signatures (default: a new one per process); give two servers the same "
        "key to accept each other's blocks",
    )
    parser.add_argument(
        "--lenient",
        action="store_true",
        help="answer every request from the script, without the real API's request rules (strict=False)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        turns = load_script(args.script)
    except (OSError, ScriptFormatError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    record_path: Path | None = args.record
    write_lock = threading.Lock()

    def on_request(request: RecordedRequest) -> None:
        if record_path is None:
            return
        with write_lock, record_path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(request.to_json()) + "\n")

    def on_signal(signum: int, frame: FrameType | None) -> None:
        raise _Stopped

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    server = ScriptedServer(
        turns,
        host=args.host,
        port=args.port,
        on_request=on_request,
        strict=not args.lenient,
        signing_key=args.signing_key,
    )
    with server:
        print(f"URL {server.url}", flush=True)
        with contextlib.suppress(_Stopped):
            threading.Event().wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
