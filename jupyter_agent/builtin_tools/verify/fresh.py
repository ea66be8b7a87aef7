"""The fresh kernel a verification runs in: which kernel spec, which environment, and how it is stopped.

- **Kernel spec**: the one the notebook names (`metadata.kernelspec.name`) when Jupyter finds it and it runs
  this kernel's own Python; otherwise a spec for this kernel's interpreter (`python -m ipykernel_launcher`),
  so the check runs on the packages the live kernel has. The report names which.
- **Environment**: the one this kernel *started* with (`startup_env`; Linux: `/proc/self/environ`) — what a restart would
  give — not variables set since in the live kernel (`%env`, `os.environ[...] = …`, a token typed into
  `getpass`); nothing the agent holds in memory (its API key given as a setting, MCP servers' variables) is
  passed. Elsewhere, the current environment stands in for the start-up one.
- **Stopping**: the kernel runs in its own process group; `stop()` kills the group at once (SIGKILL, no
  polite shutdown request first), so an Interrupt of the agent ends it and any process it started.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from jupyter_client.kernelspec import KernelSpec, KernelSpecManager, NoSuchKernel
from jupyter_client.manager import AsyncKernelManager

#: How `argv[0]` of a kernel spec names "the Python that launches it" (jupyter_client puts sys.executable there).
_LAUNCHER_PYTHONS = frozenset(
    {"python", f"python{sys.version_info[0]}", f"python{sys.version_info[0]}.{sys.version_info[1]}"}
)
_OWN_SPEC_NAME = "jupyter-agent-verify"


@dataclass(frozen=True, kw_only=True)
class FreshKernelSpec:
    spec: KernelSpec
    #: What the report says about it: "python3" or "this kernel's Python (/usr/bin/python3.11)".
    description: str


class _OneSpec(KernelSpecManager):
    """Hands the kernel manager the spec chosen here, whatever name it asks for."""

    def __init__(self, spec: KernelSpec, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._spec = spec

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        return self._spec


def _same_python(argv0: str) -> bool:
    if argv0 in _LAUNCHER_PYTHONS:
        return True
    try:
        return os.path.realpath(argv0) == os.path.realpath(sys.executable)
    except (OSError, ValueError):
        return False


def choose_spec(notebook_spec_name: str | None) -> FreshKernelSpec:
    """The notebook's kernel spec when it runs this Python, else one made for this kernel's interpreter."""
    name = notebook_spec_name or "python3"
    try:
        found = KernelSpecManager().get_kernel_spec(name)
    except (NoSuchKernel, OSError, ValueError):
        found = None
    if found is not None and found.argv and _same_python(found.argv[0]):
        return FreshKernelSpec(spec=found, description=f"kernel spec '{name}'")
    own = KernelSpec(
        argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        display_name="Python (jupyter_agent verification)",
        language="python",
        interrupt_mode="signal",
    )
    why = (
        f"the notebook's kernel spec '{name}' runs another interpreter"
        if found is not None
        else (f"no kernel spec '{name}' was found")
    )
    return FreshKernelSpec(spec=own, description=f"this kernel's Python ({sys.executable}; {why})")


def notebook_spec_name(metadata: Mapping[str, Any]) -> str | None:
    spec = metadata.get("kernelspec")
    name = cast("Mapping[str, Any]", spec).get("name") if isinstance(spec, Mapping) else None
    return name if isinstance(name, str) and name else None


class FreshKernel:
    """A kernel started for one verification and always stopped at its end (`async with`)."""

    def __init__(self, chosen: FreshKernelSpec, *, cwd: Path, env: Mapping[str, str]) -> None:
        self.chosen = chosen
        self.cwd = cwd
        self.env = dict(env)
        #: jupyter_client's async methods are declared as `(...) -> Awaitable[Unknown]`.
        self.manager: Any = AsyncKernelManager(
            kernel_name=_OWN_SPEC_NAME, kernel_spec_manager=_OneSpec(chosen.spec)
        )

    async def __aenter__(self) -> FreshKernel:
        # Its own output stays out of the user's cell: ipykernel forwards what lands on the kernel's fd 1 and 2.
        await self.manager.start_kernel(
            cwd=str(self.cwd), env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.stop()

    async def stop(self) -> None:
        """Kill the kernel's process group now and remove its connection file; safe to call twice."""
        if self.manager.has_kernel:
            await self.manager.shutdown_kernel(now=True)
