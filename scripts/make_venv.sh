#!/usr/bin/env bash
# Makes the venv of one extra CI job (scripts/test_python.sh, scripts/test_floors.sh): VENV from PYTHON, then
# `uv pip install PIP-ARGS…` into it (the package is installed editable, so the venv runs this checkout's code).
# uv, from the test packages in .venv, downloads in parallel: about 20 s for the package and its test packages
# here, where pip took 7 to 17 minutes.
#
# Safe to run again: a stamp of what the venv was made from (the interpreter's version, the pip arguments,
# pyproject.toml's build-system and project tables, scripts/floors.txt and this script) lets a second run keep
# it and return at once; any change makes it anew from scratch, so a venv never mixes two resolves.
#
# Usage: bash scripts/make_venv.sh VENV PYTHON PIP-ARGS…
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=$1
PYTHON=$2
shift 2
STAMP="$VENV/.jupyter-agent-venv"

inputs() {
  {
    "$PYTHON" -VV
    printf '%s\n' "$@"
    # What the install reads of pyproject.toml: editing the ruff or pytest settings there keeps the venv.
    "$PYTHON" -c 'import json, sys, tomllib; p = tomllib.load(open("pyproject.toml", "rb")); json.dump([p["build-system"], p["project"]], sys.stdout, sort_keys=True)'
    sha256sum scripts/floors.txt scripts/make_venv.sh
  } | sha256sum | cut -d' ' -f1
}

UV=.venv/bin/uv
if [ ! -x "$UV" ]; then
  echo "make_venv.sh: no $UV; run bash scripts/install.sh --test first (uv comes with the test packages)" >&2
  exit 1
fi

want="$(inputs "$@")"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && "$VENV/bin/python" -c 'import jupyter_agent' 2>/dev/null; then
  echo "$VENV: made from the same inputs before; kept"
  exit 0
fi
rm -rf "$VENV"
"$UV" venv --quiet --python "$PYTHON" "$VENV"
# Compiled now, as pip does: a kernel that must compile its imports (PYTHONDONTWRITEBYTECODE, or a read-only
# venv) takes seconds longer to show its first approval.
"$UV" pip install --quiet --compile-bytecode --python "$VENV/bin/python" "$@"
echo "$want" >"$STAMP"
echo "$VENV: made with $("$VENV/bin/python" -V)"
