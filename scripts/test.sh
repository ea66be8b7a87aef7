#!/usr/bin/env bash
# Install (with the test packages: install.sh --test), lint and type-check, run the labextension's unit tests, then
# the Python tests (unit and kernel three at a time, then E2E). Arguments replace the last step: they go to one
# plain pytest run (`bash scripts/test.sh tests/unit -x`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --test
echo "== ruff"; .venv/bin/ruff check . && .venv/bin/ruff format --check .
echo "== pyright (strict on jupyter_agent/)"; .venv/bin/pyright
echo "== pyright (standard on tests/, benchmarks/, scripts/)"; .venv/bin/pyright -p pyrightconfig.tests.json
echo "== labextension lint (eslint, prettier)"
(cd labextension && ../.venv/bin/jlpm install --immutable >/dev/null && ../.venv/bin/jlpm lint)
echo "== labextension tests"; (cd labextension && ../.venv/bin/jlpm test)
echo "== pytest"
if [ "$#" -gt 0 ]; then
  exec .venv/bin/python -m pytest "$@"
fi
# Unit and kernel tests three at a time (pytest-xdist; a kernel test mostly waits on its kernel), then the
# end-to-end tests in one process (Playwright's sync API keeps an event loop on its process's main thread), then
# the Interrupt timed under load on its own: it brings its own load (two CPU burners), and its 3 s bound is for
# that, not for the other tests' work beside it.
UNDER_LOAD=tests/kernel/test_interrupt_under_load.py
status=0
.venv/bin/python -m pytest -n 3 tests/unit tests/kernel --ignore="$UNDER_LOAD" || status=$?
.venv/bin/python -m pytest tests/e2e || status=$?
.venv/bin/python -m pytest "$UNDER_LOAD" || status=$?
exit "$status"
