#!/usr/bin/env bash
# The kernel tests again on the OLDEST ipykernel the package accepts (pyproject's `ipykernel>=X`): the shell pump
# and the notebook bridge use ipykernel internals, checked by presence; this proves the oldest still has them.
# (scripts/test.sh runs everything on the newest, the one pip installs.)
#
# A second venv, .venv-ipykernel-oldest/, holds only that ipykernel and sees everything else in .venv (a .pth
# file adds .venv's site-packages after its own), so it takes seconds to make and stays in step with .venv.
# Kernels the tests start run this venv's python, so they import the oldest ipykernel; the script checks that
# before the tests run.
#
# Usage: bash scripts/test_oldest_ipykernel.sh [pytest args]   (after scripts/install.sh; as root or not)
set -euo pipefail
cd "$(dirname "$0")/.."

OLDEST="$(sed -nE 's/^ *"ipykernel>=([0-9][0-9.]*)".*/\1/p' pyproject.toml | head -1)"
[ -n "$OLDEST" ] || { echo "no 'ipykernel>=X' lower bound in pyproject.toml" >&2; exit 1; }
MAIN=.venv
VENV=.venv-ipykernel-oldest
SITE="$("$MAIN/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"

# "yes" when the venv imports exactly that version (7.0 == 7.0.0).
has_oldest() {
  "$VENV/bin/python" -c 'import sys, ipykernel; from packaging.version import Version as V
print("yes" if V(ipykernel.__version__) == V(sys.argv[1]) else ipykernel.__version__)' "$OLDEST" 2>/dev/null || true
}

if [ "$(has_oldest)" != yes ]; then
  echo "jupyter_agent: making $VENV with ipykernel $OLDEST (everything else from $MAIN)"
  rm -rf "$VENV"
  "$MAIN/bin/python" -m venv "$VENV"
  OWN="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "ipykernel==$OLDEST"
  # Processed at start-up after the venv's own site-packages: its ipykernel wins, the rest comes from .venv
  # (addsitedir also runs .venv's .pth files: the editable install, the pytest plugin's entry point).
  echo "import site; site.addsitedir('$SITE')" >"$OWN/zz-jupyter-agent-main-venv.pth"
fi
[ "$(has_oldest)" = yes ] || { echo "$VENV does not import ipykernel $OLDEST: $(has_oldest)" >&2; exit 1; }
# Tools found next to the interpreter (Grep's and Glob's ripgrep) come from .venv too.
if [ -x "$MAIN/bin/rg" ]; then
  ln -sf "$(cd "$MAIN/bin" && pwd)/rg" "$VENV/bin/rg"
fi

# The kernels the tests start must run that ipykernel too (jupyter_client runs `python` as sys.executable).
"$VENV/bin/python" - "$OLDEST" <<'EOF'
import sys
from jupyter_client.manager import start_new_kernel

manager, client = start_new_kernel(kernel_name="python3")
try:
    code = (
        "import ipykernel; from packaging.version import Version as V; "
        f"assert V(ipykernel.__version__) == V({sys.argv[1]!r}), ipykernel.__version__"
    )
    reply = client.execute_interactive(code, timeout=60)
    assert reply["content"]["status"] == "ok", f"the tests' kernels do not run ipykernel {sys.argv[1]}: {reply}"
    print(f"the tests' kernels run ipykernel {sys.argv[1]}")
finally:
    client.stop_channels()
    manager.shutdown_kernel(now=True)
EOF

echo "== kernel tests on ipykernel $OLDEST"
exec "$VENV/bin/python" -m pytest tests/kernel "$@"
