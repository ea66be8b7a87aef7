"""Which processes are still alive, found by a marker in their command line (works for sandboxed commands
too, whose own pids and process groups are not the ones this process sees)."""

from __future__ import annotations

from pathlib import Path


def alive_with(marker: str) -> list[int]:
    """Live (not zombie) processes whose command line contains `marker`."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker not in (entry / "cmdline").read_bytes().decode(errors="replace"):
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.append(int(entry.name))
    return found
