#!/usr/bin/env bash
# Makes the venv of one extra CI job (scripts/test_python.sh, scripts/test_floors.sh): VENV from PYTHON, then
# `pip install PIP-ARGS…` into it (the package is installed editable, so the venv runs this checkout's code).
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
    # What pip reads of pyproject.toml: editing the ruff or pytest settings there keeps the venv.
    "$PYTHON" -c 'import json, sys, tomllib; p = tomllib.load(open("pyproject.toml", "rb")); json.dump([p["build-system"], p["project"]], sys.stdout, sort_keys=True)'
    sha256sum scripts/floors.txt scripts/make_venv.sh
  } | sha256sum | cut -d' ' -f1
}

# pip's own notes about this machine's extra package locations say nothing about the install: left out.
quiet_pip() { "$VENV/bin/python" -m pip "$@" 2> >(grep -v '^WARNING: Location ' >&2); }

want="$(inputs "$@")"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && "$VENV/bin/python" -c 'import jupyter_agent' 2>/dev/null; then
  echo "$VENV: made from the same inputs before; kept"
  exit 0
fi
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
quiet_pip install --quiet --disable-pip-version-check --upgrade pip
quiet_pip install --quiet --disable-pip-version-check "$@"
echo "$want" >"$STAMP"
echo "$VENV: made with $("$VENV/bin/python" -V)"
