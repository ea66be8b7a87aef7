"""`undo_memory_mb` caps what the undo journal keeps in the kernel's memory: the rest is on disk under the Jupyter
data dir, `%agent undo` reads it back, and `%agent reset` moves it all there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from frontend import AgentKernel, KernelFrontend

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

CONTENT = {name: f"{name} " * 200_000 for name in ("first", "second")}  # 1.2 MB and 1.4 MB
IN_MEMORY = "from jupyter_agent.base.journal_store import STORE; print('KEPT', STORE.in_memory_bytes)"


def kept_in_memory(frontend: KernelFrontend) -> int:
    line = next(ln for ln in frontend.run(IN_MEMORY).text().splitlines() if ln.startswith("KEPT "))
    return int(line.split()[1])


def write_turns(name: str) -> list[Turn]:
    write = ToolUse(name="Write", input={"file_path": f"{name}.txt", "content": CONTENT[name]})
    return [Turn(blocks=[write], chunk_size=1 << 16), Turn(blocks=[Text(f"wrote {name}")])]


def test_undo_records_past_the_cap_live_on_disk_and_reset_moves_them_all_there(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, _ = agent_kernel([*write_turns("first"), *write_turns("second")])
    frontend.run("%config AgentMagics.undo_memory_mb = 1")
    for name in ("first", "second"):
        ran = frontend.run(f"%%agent --mode bypassPermissions\nwrite {name}", timeout=120)
        assert f"wrote {name}" in ran.text(), ran.text()[-2000:]
    assert kept_in_memory(frontend) <= 2**20
    spilled = list((tmp_path / "jupyter-data" / "jupyter_agent" / "undo").glob("*/*.bin"))
    assert spilled and all(p.stat().st_mode & 0o077 == 0 for p in spilled)

    undone = frontend.run("%agent undo").text()
    assert "removed second.txt (the agent had created it)" in undone
    assert not (tmp_path / "second.txt").exists() and (tmp_path / "first.txt").exists()

    frontend.run("%agent reset")
    assert kept_in_memory(frontend) == 0
    undone = frontend.run("%agent undo").text()
    assert "removed first.txt (the agent had created it)" in undone, json.dumps(undone)
    assert not (tmp_path / "first.txt").exists()


def test_a_record_changed_on_disk_is_refused_by_undo_and_a_killed_kernels_records_are_swept(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    undo_base = tmp_path / "jupyter-data" / "jupyter_agent" / "undo"
    killed = undo_base / "999999999-12345"  # a kernel that is gone: no such pid
    killed.mkdir(parents=True)
    (killed / "0.bin").write_bytes(b"what a killed kernel kept")
    frontend, _ = agent_kernel(write_turns("first"))
    frontend.run("%config AgentMagics.undo_memory_mb = 0")  # every record goes to disk
    ran = frontend.run("%%agent --mode bypassPermissions\nwrite first", timeout=120)
    assert "wrote first" in ran.text(), ran.text()[-2000:]
    assert not killed.exists()  # swept when the agent started
    records = list(undo_base.glob("*/*.bin"))
    assert records
    for record in records:  # same size, other bytes: only the digest tells
        data = record.read_bytes()
        record.write_bytes(data[::-1])
    undone = frontend.run("%agent undo").text()
    assert "skipped first.txt: the undo record kept on disk at" in undone, undone
    assert "changed since it was written (its digest differs)" in undone and "nothing was written" in undone
    assert (tmp_path / "first.txt").read_text() == CONTENT[
        "first"
    ]  # the agent's bytes stay, not the tampered
