#!/usr/bin/env bash
# Install (with the test packages: install.sh --test), lint and type-check, run the labextension's unit tests, then
# the Python tests (unit, kernel, E2E).
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
exec .venv/bin/python -m pytest "$@"
