"""A real jupyter-kernel-gateway (PyPI) for end-to-end tests: JupyterLab with `--gateway-url` runs every kernel
there, in another directory than the Lab's root — how JupyterHub, Kubernetes and Enterprise Gateway deployments
run kernels.

`hide` puts the kernel on "another machine" as far as files go: each kernel starts inside bubblewrap with that
directory replaced by an empty tmpfs, so the Lab's files (and a forwarded `JPY_SESSION_NAME`) name paths that
do not exist on the kernel's host. `forward` forwards `JPY_SESSION_NAME` from the Lab to the kernel
(`JUPYTER_GATEWAY_ALLOWED_ENVS` on the Lab's side, `env_whitelist` on the gateway's).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from lab import ROOT, free_port


@dataclass
class Gateway:
    url: str
    #: The kernels' working directory (the kernel host's), apart from the Lab's root.
    home: Path
    process: subprocess.Popen[bytes]
    log: Path


def kernel_spec(tmp: Path, server_url: str, api_key: str, hide: Path | None) -> Path:
    """A `python3` kernelspec running this environment with this source tree; returns the JUPYTER_PATH entry."""
    path = tmp / "kg-jupyter"
    spec = path / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    if hide is not None:
        from jupyter_agent.permissions.bubblewrap import check_sandbox

        bwrap = check_sandbox()
        assert bwrap.bubblewrap is not None, bwrap.describe(network=False)
        argv = [bwrap.bubblewrap.executable, "--dev-bind", "/", "/", "--tmpfs", str(hide), "--", *argv]
    env = {
        "PYTHONPATH": str(ROOT),
        "ANTHROPIC_BASE_URL": server_url,
        "ANTHROPIC_API_KEY": api_key,
        "JUPYTER_DATA_DIR": str(tmp / "kernel-data"),  # the kernel host's own: saved sessions land there
        "IPYTHONDIR": str(tmp / "kernel-ipython"),
        "HOME": str(tmp / "kernel-home"),
    }
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "Python 3", "language": "python", "env": env})
    )
    return path


def start_gateway(
    tmp: Path, server_url: str, api_key: str, *, forward: bool = False, hide: Path | None = None
) -> Gateway:
    home = tmp / "kernel-host"
    home.mkdir()
    port = free_port()
    env = {
        **os.environ,
        "JUPYTER_PATH": str(kernel_spec(tmp, server_url, api_key, hide)),
        "JUPYTER_CONFIG_DIR": str(tmp / "kg-config"),
        "JUPYTER_DATA_DIR": str(tmp / "kg-data"),
        "JUPYTER_RUNTIME_DIR": str(tmp / "kg-runtime"),
    }
    log = tmp / "gateway.log"
    jupyter = str(Path(sys.executable).parent / "jupyter")
    process = subprocess.Popen(
        [
            jupyter, "kernelgateway", "--ip=127.0.0.1", f"--port={port}",
            "--JupyterWebsocketPersonality.list_kernels=True",
            *(["--JupyterWebsocketPersonality.env_whitelist=JPY_SESSION_NAME"] if forward else []),
        ],
        cwd=home, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    gateway = Gateway(url=f"http://127.0.0.1:{port}", home=home, process=process, log=log)
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{gateway.url}/api/kernelspecs", timeout=5):
                return gateway
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError(f"the kernel gateway did not start:\n{log.read_text()[-3000:]}") from None
            time.sleep(0.3)


def stop_gateway(gateway: Gateway) -> None:
    gateway.process.terminate()
    try:
        gateway.process.wait(10)
    except subprocess.TimeoutExpired:
        gateway.process.kill()
