#!/usr/bin/env bash
# The CI job for another Python (3.12, 3.13): the package and its test packages in a venv of that Python,
# .venv-py<VERSION>, then the whole unit suite and a smoke set of kernel tests on it (why those: docs/development.md, "Which
# Pythons and versions CI runs"). With --kernel-smoke only the smoke set runs (CI's 3.12 job: the versions between
# the two ends). CI's main job (scripts/test.sh) runs everything on Python 3.11.
#
# The interpreter is `python<VERSION>` on PATH, else pyenv's newest <VERSION>.x. When there is none the job
# says so in one line and succeeds: the other jobs still run.
#
# Usage: bash scripts/test_python.sh VERSION [--kernel-smoke | pytest args]   (after scripts/install.sh --test, which brings
#        the browser, the MCP test servers and the Bash sandbox's Debian packages these tests share)
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=${1:?usage: bash scripts/test_python.sh VERSION [--kernel-smoke | pytest args]}
shift
UNIT_SUITE=1
if [ "${1:-}" = "--kernel-smoke" ]; then
  UNIT_SUITE=0
  shift
fi

# The smoke set: the kernel's own start and magics, the approval pump (ipykernel internals on a new asyncio),
# the live-notebook bridge, Run All's order and the quickstart end to end.
KERNEL_SMOKE=(
  tests/kernel/test_agent_magic.py
  tests/kernel/test_shell_pump.py
  tests/kernel/test_live_notebook_bridge.py
  tests/kernel/test_run_all_order.py
  tests/kernel/test_quickstart.py
)

find_python() {
  # pyenv's shim for python3.12 is on PATH even where it cannot run it: each candidate must answer.
  local candidate
  for candidate in "$(command -v "python$VERSION" 2>/dev/null)" \
    $(ls -d "$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")/versions/$VERSION".*/bin/"python$VERSION" 2>/dev/null | sort -rV); do
    if [ -n "$candidate" ] && "$candidate" -c 'import sys' >/dev/null 2>&1; then
      echo "$candidate"
      return
    fi
  done
}

PYTHON="$(find_python)"
if [ -z "$PYTHON" ]; then
  echo "python $VERSION: no interpreter here (neither python$VERSION on PATH nor pyenv's $VERSION.x); job skipped"
  exit 0
fi
VENV=".venv-py$VERSION"
bash scripts/make_venv.sh "$VENV" "$PYTHON" -e ".[test]"
# The tests' JupyterLab, kernels and tools come from this venv.
export VIRTUAL_ENV="$PWD/$VENV" PATH="$PWD/$VENV/bin:$PATH"
# A temp root of its own: CI runs the 3.12 job beside the others, and pytest clears old temp folders of its root
# as it starts.
export PYTEST_DEBUG_TEMPROOT="${TMPDIR:-/tmp}/jupyter-agent-py$VERSION-pytest"
mkdir -p "$PYTEST_DEBUG_TEMPROOT"
if [ "$#" -gt 0 ]; then
  exec "$VENV/bin/python" -m pytest "$@"
fi
# Two runs: the kernel tests wait for their kernels against a clock, so they do not share the cores with the
# unit tests' computing.
status=0
if [ "$UNIT_SUITE" = 1 ]; then
  "$VENV/bin/python" -m pytest -n 3 tests/unit || status=$?
fi
"$VENV/bin/python" -m pytest -n 2 "${KERNEL_SMOKE[@]}" || status=$?
exit "$status"
