"""A secret the process started with stays masked after the user removes it from `os.environ`: a restarted
kernel, or VerifyNotebook's fresh one, still gets it (the start-up environment), so what they print must not
reach the model in clear. Run in a process of its own, whose start-up environment the test chooses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jupyter_agent

CHILD = """
import json, os
from jupyter_agent.masking import mask, scrubbed_environ
token = os.environ.pop("GITHUB_TOKEN")
print(json.dumps({"masked": mask("the token is " + token), "scrubbed": "GITHUB_TOKEN" in scrubbed_environ()}))
"""


def test_a_token_popped_from_os_environ_is_still_masked() -> None:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(Path(jupyter_agent.__file__).parent.parent),
        "GITHUB_TOKEN": "ghp_popped0123456789abcdefXYZ",
    }
    child = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=60)
    assert child.returncode == 0, child.stderr
    said = json.loads(child.stdout)
    assert said == {"masked": "the token is [redacted: GITHUB_TOKEN]", "scrubbed": False}
