#!/usr/bin/env bash
# Installs everything the project needs into .venv: Python deps, the package (editable), the labextension
# (built from labextension/ with jlpm by the build hook) and, with --browser, Debian's chromium for E2E tests.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
export PATH="$PWD/.venv/bin:$PATH"  # the build tools call jlpm / jupyter-builder by name
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[test]"
# The editable install builds the labextension into jupyter_agent/labextension; link it where JupyterLab looks.
.venv/bin/jupyter-builder develop --overwrite . >/dev/null

if [ "${1:-}" = "--browser" ] && { [ ! -x /usr/bin/chromium ] || ! fc-list 2>/dev/null | grep -qi "color emoji"; }; then
  SUDO=""
  [ "$(id -u)" = "0" ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver fonts-noto-color-emoji >/dev/null
fi
