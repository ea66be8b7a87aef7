#!/usr/bin/env bash
# Install, then open JupyterLab on the quickstart notebook.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
exec .venv/bin/jupyter lab notebooks/quickstart.ipynb "$@"
