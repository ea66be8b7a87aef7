#!/usr/bin/env bash
# Install (a no-op when nothing changed), then open JupyterLab on your own copy of the quickstart notebook.
#
# The copy is playground/quickstart.ipynb (git ignores playground/, which is also the server's root): the tracked
# notebooks/quickstart.ipynb is never opened, so nothing JupyterLab saves — outputs, autosaves — ever shows in
# `git status`. The copy is made when it is missing, follows the tracked notebook while you have not changed its
# cells (outputs do not count), and is kept (with a note) once you have. JupyterLab prints the copy's URL with its
# token, and opens it when a browser is there.
#
# Extra arguments go to `jupyter lab`, e.g.:
#   bash scripts/lab.sh --port 8899 --no-browser
#   bash scripts/lab.sh --ip 0.0.0.0 --no-browser      (in a container; open the printed URL outside)
# As root (most containers) it adds --allow-root, which JupyterLab otherwise requires.
# JUPYTER_AGENT_SKIP_INSTALL=1 skips the install step (the tests use it: they run lab.sh on a copy of the
# checkout with the project's venv).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${JUPYTER_AGENT_SKIP_INSTALL:-}" != 1 ]; then
  bash scripts/install.sh
fi

TRACKED=notebooks/quickstart.ipynb
COPY=playground/quickstart.ipynb
ORIGIN=playground/.quickstart-origin  # the cells of the tracked notebook the copy was made from, hashed
cells() {
  # What a user writes in a notebook: its cells' types and sources. Outputs, execution counts and metadata (the
  # kernel's Python version, which JupyterLab writes on opening) do not make the copy "changed by the user".
  .venv/bin/python - "$1" 2>/dev/null <<'EOF' || echo unreadable
import hashlib, json, sys

with open(sys.argv[1], encoding="utf-8") as handle:
    cells = json.load(handle)["cells"]
typed = [[c["cell_type"], "".join(c["source"]) if isinstance(c["source"], list) else c["source"]] for c in cells]
print(hashlib.sha256(json.dumps(typed).encode()).hexdigest())
EOF
}
mkdir -p playground
origin="$(cat "$ORIGIN" 2>/dev/null || true)"
if [ ! -f "$COPY" ]; then
  cp "$TRACKED" "$COPY"
  cells "$TRACKED" >"$ORIGIN"
elif [ "$(cells "$COPY")" = "$origin" ]; then
  if [ "$(cells "$TRACKED")" != "$origin" ]; then
    cp "$TRACKED" "$COPY"
    cells "$TRACKED" >"$ORIGIN"
    echo "jupyter_agent: $COPY updated to the new $TRACKED (you had not changed its cells)"
  fi
elif [ "$(cells "$TRACKED")" != "$origin" ]; then
  echo "jupyter_agent: kept your $COPY (you changed it); $TRACKED is newer: delete your copy to start from it"
fi

# JupyterLab as most users run it: with jupyter-collaboration installed (the test packages bring it), its server
# extension and its two frontend plugins are turned off for this server (scripts/lab-config). Turning off only
# real-time collaboration (YDocExtension.disable_rtc) is not enough: its frontend still replaces the document
# provider and logs "Could not find a provider … falling back to REST API save" on every save, and its server
# extension raises "WebsocketServer not running" on Ctrl+C.
export JUPYTER_CONFIG_PATH="$PWD/scripts/lab-config${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}"
# The URL JupyterLab prints and opens is the notebook itself, not the Launcher.
args=(--LabApp.default_url=/lab/tree/quickstart.ipynb)
if [ "$(id -u)" = "0" ]; then
  args+=(--allow-root)
fi
echo "jupyter_agent: starting JupyterLab on $COPY; pass a port or --no-browser as arguments: bash scripts/lab.sh --port 8899 --no-browser"
exec .venv/bin/jupyter lab "$COPY" "${args[@]}" "$@"
