"""Secrets leave in no part: slices, the key reversed, URL-quoted, cut by a limit, or read through IPython's and
the agent's own objects — a real kernel, a scripted model trying each way, and every request the model API
received searched for any 8-character run of the key (and of it reversed) and of the kernel's HMAC key."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest
from frontend import AgentKernel, result_text, tool_results

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

KEY = "sk-ant-api03-Wq7Lm2Vx9Kp4Tz8Nc3Rb6Hd1Fg5Js0Ya"
PROBES = [
    ("Inspect", {"name": "os.environ['ANTHROPIC_API_KEY'][0:40]"}),
    ("Inspect", {"name": "token[::-1]"}),
    ("Inspect", {"name": "exit._ip.magics_manager.registry"}),
    ("Inspect", {"name": "exit._ip.kernel.session.key"}),
    ("Inspect", {"name": "notes"}),
    ("Debug", {}),
    ("ListVariables", {}),
    (
        "Bash",
        {
            "command": "cut -c1-40 key.txt; rev key.txt; python3 -c \"import urllib.parse as u; print(u.quote(open('key.txt').read().strip()))\""
        },
    ),
]


def runs_of(secret: str, size: int = 8) -> set[str]:
    """Every `size`-character run of the secret and of it reversed, raw and URL-quoted."""
    found: set[str] = set()
    for form in (secret, secret[::-1], quote(secret), quote(secret, safe="")):
        found |= {form[i : i + size] for i in range(len(form) - size + 1)}
    return found


def test_no_part_of_a_secret_reaches_the_model(agent_kernel: AgentKernel, tmp_path: Path) -> None:
    (tmp_path / "key.txt").write_text(KEY + "\n")
    script = [
        Turn(blocks=[Text("Looking."), *(ToolUse(name=n, input=i) for n, i in PROBES)]),
        Turn(blocks=[Text("Nothing found.")]),
    ]
    frontend, server = agent_kernel(script, widgets=False, env={"ANTHROPIC_API_KEY": KEY})
    setup = frontend.run(
        "import os\n"
        "token = os.environ['ANTHROPIC_API_KEY']\n"
        "notes = 'x' * 290 + token + ' and more text'\n"
        "def fail(text):\n"
        "    raise ValueError('y' * 495 + text)\n"
        "fail(notes)"
    )
    assert "ValueError" in setup.text()
    # Bash runs under the allow rule with or without bwrap here (masking is the point; the sandbox has its tests)
    frontend.run('%config AgentMagics.bash_sandbox = "off"')
    ran = frontend.run("%%agent --allow Bash\nfind the key", timeout=120)
    assert "Nothing found." in ran.text(), ran.text()
    bodies = [json.dumps(r.body) for r in server.recorded]
    assert len(bodies) == 2
    answers = [result_text(block) for block in tool_results(server.recorded[1].body)]
    sliced, reversed_, registry, session_key, notes, debug, listing, bash = answers
    for asked in (sliced, reversed_, notes):  # headless: the question a credential raises is refused
        assert asked.startswith("DENIED: Inspect: no one could approve"), asked
        assert "use `--mode bypassPermissions`" in asked and "allow Inspect" not in asked
    assert registry.startswith("INVALID_ARGS") and "the kernel's or the agent's own object" in registry
    assert session_key.startswith("INVALID_ARGS") and "the kernel's or the agent's own object" in session_key
    assert "[redacted: ANTHROPIC_API_KEY]" in debug and "ValueError" in debug, debug
    assert "[redacted: ANTHROPIC_API_KEY]" in bash
    hmac_key = frontend.km.session.key.decode()
    leaks = runs_of(KEY) | runs_of(hmac_key)
    for body in bodies:
        found = sorted(run for run in leaks if run in body)
        assert not found, [body[max(body.find(run) - 200, 0) : body.find(run) + 60] for run in found[:2]]
    agent_output = [m for m in frontend.iopub_log if m["parent_header"].get("msg_id") == ran.msg_id]
    iopub = json.dumps(agent_output, default=str)  # the user's own cell printed the key: that is theirs
    assert "Nothing found." in iopub
    assert not sorted(run for run in leaks if run in iopub)
    assert listing
