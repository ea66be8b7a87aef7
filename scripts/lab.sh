#!/usr/bin/env bash
# Install (a no-op when nothing changed), then open JupyterLab on the quickstart notebook.
#
# Extra arguments go to `jupyter lab`, e.g.:
#   bash scripts/lab.sh --port 8899 --no-browser
#   bash scripts/lab.sh --ip 0.0.0.0 --no-browser      (in a container; open the printed URL outside)
# As root (most containers) it adds --allow-root, which JupyterLab otherwise requires.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
# The test extras install jupyter-collaboration; the quickstart runs as most users run JupyterLab, with
# real-time collaboration off. `bash scripts/lab.sh --YDocExtension.disable_rtc=False` turns it on.
args=(--YDocExtension.disable_rtc=True)
if [ "$(id -u)" = "0" ]; then
  args+=(--allow-root)
fi
echo "jupyter_agent: starting JupyterLab; pass a port or --no-browser as arguments: bash scripts/lab.sh --port 8899 --no-browser"
exec .venv/bin/jupyter lab notebooks/quickstart.ipynb "${args[@]}" "$@"
