#!/usr/bin/env bash
# The floors job: the package with the OLDEST version of every direct dependency pyproject.toml allows
# (scripts/floors.txt, generated from pyproject.toml by scripts/floors.py), on the oldest Python it supports, in a
# venv of its own (.venv-floors). Then, on that set: JupyterLab lists the prebuilt extension as enabled and OK,
# the unit and kernel tests of the code that meets the dependencies most directly, and one JupyterLab
# test (two notebooks, each kernel's agent edits only its own). The newest versions pip picks are CI's main job (scripts/test.sh).
#
# Usage: bash scripts/test_floors.sh [pytest args]   (after scripts/install.sh --test, which brings the browser,
#        the MCP test servers and the Bash sandbox's Debian packages these tests share)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3.11}
VENV=.venv-floors

bash scripts/make_venv.sh "$VENV" "$PYTHON" -c scripts/floors.txt -e ".[test]"
# The tests' JupyterLab, kernels and tools come from this venv.
export VIRTUAL_ENV="$PWD/$VENV" PATH="$PWD/$VENV/bin:$PATH"
# A temp root of its own: CI runs this job beside the Python jobs, and pytest clears old temp folders of its
# root as it starts (a sandboxed Bash test of the other run lost the folder it was binding).
export PYTEST_DEBUG_TEMPROOT="${TMPDIR:-/tmp}/jupyter-agent-floors-pytest"
mkdir -p "$PYTEST_DEBUG_TEMPROOT"

echo "== every direct dependency at its floor"
"$VENV/bin/python" - <<'PY'
import sys
from importlib.metadata import version

from packaging.requirements import Requirement
from packaging.version import Version

wrong = []
for line in open("scripts/floors.txt", encoding="utf-8").read().splitlines():
    if line.strip() and not line.startswith("#"):
        wanted = Requirement(line.strip())
        (floor,) = wanted.specifier
        installed = version(wanted.name)
        print(f"  {wanted.name:18} {installed}")
        if Version(installed) != Version(floor.version):
            wrong.append(f"{wanted.name} {installed} (floor {floor.version})")
if wrong:
    sys.exit(f"not at the floor: {', '.join(wrong)}")
PY

echo "== jupyter labextension list (JupyterLab $("$VENV/bin/jupyter" lab --version))"
LISTING="$("$VENV/bin/jupyter" labextension list 2>&1)"
echo "$LISTING"
grep -Eq '^ +jupyter-agent v[0-9.]+ .*enabled.*OK.*\(python, jupyter-claude-agent\)' <<<"$LISTING" || {
  echo "the extension is not listed as enabled and OK on the JupyterLab floor" >&2
  exit 1
}

if [ "$#" -gt 0 ]; then
  exec "$VENV/bin/python" -m pytest "$@"
fi
# The unit tests of the code that meets an old dependency most directly: the SDK (agent, the scripted server,
# deprecated models), ipywidgets (ui), nbformat (notebook), httpx / markdownify / beautifulsoup4 (WebFetch),
# pypdf.
UNIT_AT_THE_FLOORS=(
  tests/unit/agent tests/unit/test_scripted_server.py tests/unit/test_scripted_web_search.py
  tests/unit/test_deprecations.py tests/unit/ui tests/unit/notebook tests/unit/builtin_tools/web
  tests/unit/builtin_tools/files/test_read_pdf.py
)
# The kernel tests of the code that meets ipykernel, jupyter_client, comm, ipywidgets, the SDK and mcp from
# inside a kernel: the magics, the approval pump and the held cells (ipykernel's shell channel and queue), the
# waits in the cell, the live-notebook bridge (comm), widgets closed after many runs, Interrupt (ipykernel's
# signal handling), the SDK over real HTTP, MCP servers, VS Code's message order, the quickstart. The rest of
# the kernel suite tests the package's own logic, the same on any version: the main job runs it on the newest.
# (Not the Interrupt timed under load: this job runs beside the other jobs, so its 3 s bound would measure the
# CI machine's other work, not the code.)
KERNEL_AT_THE_FLOORS=(
  tests/kernel/test_agent_magic.py tests/kernel/test_shell_pump.py tests/kernel/test_preload_holds_cells.py
  tests/kernel/test_run_all_order.py tests/kernel/test_waits_in_the_cell.py
  tests/kernel/test_live_notebook_bridge.py tests/kernel/test_widgets_are_closed.py
  tests/kernel/test_interrupt_stops_the_run.py tests/kernel/test_next_ipykernel.py
  tests/kernel/test_real_api_session.py tests/kernel/test_mcp_in_kernel.py tests/kernel/test_vscode_protocol.py
  tests/kernel/test_quickstart.py
)
echo "== unit and kernel tests that meet the dependencies most directly, on the floors"
status=0
"$VENV/bin/python" -m pytest -n 3 "${UNIT_AT_THE_FLOORS[@]}" "${KERNEL_AT_THE_FLOORS[@]}" || status=$?
echo "== one JupyterLab test on the floors"
"$VENV/bin/python" -m pytest tests/e2e/test_live_notebook.py::test_each_kernel_edits_only_its_own_notebook || status=$?
exit "$status"
