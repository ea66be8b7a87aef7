#!/usr/bin/env bash
# The package as a user gets it: build the sdist and the wheel, install the wheel into a fresh venv whose PATH
# has no Node, check that JupyterLab lists the prebuilt extension as enabled and OK, and run
# notebooks/quickstart.ipynb headless (nbclient) from that venv against the offline demo model.
#
# Usage: bash scripts/wheel_check.sh [WORKDIR]   (default: a temporary directory, removed at the end)
# Needs: the project's venv (.venv) and Node/jlpm at BUILD time only (the wheel's labextension is built by the
# jupyter-builder hook); PyPI access for the fresh venv's dependencies. `build` comes from .venv when the test
# packages are installed there, else from a throwaway venv in WORKDIR (the main install has no test packages).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
WORK="${1:-}"
if [[ -z "$WORK" ]]; then
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
DIST="$WORK/dist"
VENV="$WORK/venv"
step() { printf '\n== %s\n' "$*"; }

step "build the sdist and the wheel"
if [[ "${REUSE_DIST:-}" != 1 ]]; then # REUSE_DIST=1: check the wheel already in WORKDIR/dist again
  rm -rf "$DIST"
  BUILDER="$PYTHON"
  if ! "$BUILDER" -c 'import build' 2>/dev/null; then
    "$PYTHON" -m venv "$WORK/build-venv"
    "$WORK/build-venv/bin/pip" install -q build
    BUILDER="$WORK/build-venv/bin/python"
  fi
  "$BUILDER" -m build --sdist --wheel --outdir "$DIST" "$ROOT" >"$WORK/build.log" 2>&1 || {
    tail -40 "$WORK/build.log"
    exit 1
  }
fi
# The distribution's file names (jupyter-claude-agent); the import package inside is jupyter_agent.
WHEEL="$(ls "$DIST"/jupyter_claude_agent-*.whl)"
SDIST="$(ls "$DIST"/jupyter_claude_agent-*.tar.gz)"
echo "$WHEEL"
echo "$SDIST"
"$PYTHON" - "$WHEEL" "$SDIST" <<'EOF'
import sys, tarfile, zipfile
wheel, sdist = sys.argv[1], sys.argv[2]
names = zipfile.ZipFile(wheel).namelist()
prefix = "jupyter_claude_agent-0.1.0.data/data/share/jupyter/labextensions/jupyter-agent/"
for needed in ("package.json", "install.json"):
    assert prefix + needed in names, f"the wheel lacks {prefix + needed}"
assert any(n.startswith(prefix + "static/remoteEntry.") for n in names), "the wheel has no built labextension"
assert not any("node_modules" in n for n in names), "node_modules leaked into the wheel"
meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
for field in ("Name: jupyter-claude-agent", "Classifier: Framework :: Jupyter :: JupyterLab :: Extensions :: Prebuilt",
              "Classifier: Programming Language :: Python :: 3.13", "Requires-Python: >=3.11", "License", "Keywords"):
    assert field in meta, f"METADATA lacks {field!r}"
assert any(n.startswith("jupyter_agent/") and n.endswith("__init__.py") for n in names), "no jupyter_agent package"
members = tarfile.open(sdist).getnames()
assert any(m.endswith("/labextension/src/index.ts") for m in members), "the sdist lacks the extension's source"
assert not any("/node_modules/" in m for m in members), "node_modules leaked into the sdist"
print(f"wheel: {len(names)} files, labextension included; sdist: {len(members)} members")
EOF

step "a fresh venv with no Node on PATH"
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
# Only the venv and a few basic tools: no node, npm or jlpm can be found.
SAFE="$WORK/bin"
mkdir -p "$SAFE"
for tool in sh bash env uname cat cp ls rm mkdir grep sed tail head git; do
  found="$(command -v "$tool" || true)"
  [[ -n "$found" ]] && ln -sf "$found" "$SAFE/$tool"
done
export PATH="$VENV/bin:$SAFE"
unset PYTHONPATH PYTHONHOME VIRTUAL_ENV JUPYTER_PATH JUPYTER_CONFIG_DIR JUPYTER_DATA_DIR
cd "$WORK" # not the source tree: `import jupyter_agent` must find the installed wheel
if command -v node >/dev/null 2>&1; then
  echo "node is still on PATH: $(command -v node)" >&2
  exit 1
fi
"$VENV/bin/pip" install -q --upgrade pip >/dev/null 2>&1 || true
"$VENV/bin/pip" install -q "$WHEEL" nbclient 2>&1 | grep -v '^WARNING: Location' || true
"$VENV/bin/python" - "$VENV" <<'EOF'
import sys, jupyter_agent
assert jupyter_agent.__file__.startswith(sys.argv[1]), f"jupyter_agent imported from {jupyter_agent.__file__}"
print("installed", jupyter_agent.__file__)
EOF

step "jupyter labextension list"
LISTING="$("$VENV/bin/jupyter" labextension list 2>&1)"
echo "$LISTING"
grep -Eq 'jupyter-agent v[0-9.]+ .*enabled.*OK.*\(python, jupyter-claude-agent\)' <<<"$LISTING" || {
  echo "jupyter-agent is not listed as enabled and OK" >&2
  exit 1
}

step "the quickstart, headless, from the fresh venv"
RUN="$WORK/run"
rm -rf "$RUN"
mkdir -p "$RUN/ipython/profile_default"
cp "$ROOT/notebooks/quickstart.ipynb" "$RUN/"
# Headless, an approval cannot be clicked: let edits through, as a user running it unattended would.
echo 'c.AgentMagics.mode = "acceptEdits"' >"$RUN/ipython/profile_default/ipython_kernel_config.py"
(
  cd "$RUN"
  env -u ANTHROPIC_API_KEY -u ANTHROPIC_BASE_URL IPYTHONDIR="$RUN/ipython" JUPYTER_DATA_DIR="$RUN/data" \
    JPY_SESSION_NAME="$RUN/quickstart.ipynb" "$VENV/bin/python" - <<'EOF'
import nbformat
from nbclient import NotebookClient

nb = nbformat.read("quickstart.ipynb", as_version=4)
NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": "."}}).execute()
texts = []
for cell in nb.cells:
    for out in cell.get("outputs", []):
        texts.append(out.get("text", "") or out.get("data", {}).get("text/plain", ""))
joined = "\n".join(texts)
months = [t for t in texts if t.startswith("['1'")]
assert months == ["['1', '2']", "['1', '2', '3']", "['1', '2']"], joined[-2000:]  # missing, fixed, undone
assert "stops *before* 3" in joined, joined[-2000:]  # the one-line question, answered
assert "range(1, 3)" in open("demo/sales_loader.py").read()
print("quickstart ran headless: March missing, fixed, the fix undone, the question answered")
EOF
)
echo
echo "wheel check passed"
