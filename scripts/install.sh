#!/usr/bin/env bash
# Installs what a user needs into .venv: the package (editable) with its dependencies and the labextension (built
# from labextension/ with jlpm by the build hook, copied where JupyterLab looks). That is all scripts/lab.sh needs.
#
# With --test (scripts/test.sh), also what only the tests and checks need: the Python packages of the `test` extra
# (pytest, Playwright, jupyter-collaboration, ruff, pyright, …), the npm MCP servers the MCP tests talk to, and the
# Debian packages chromium (+ driver and an emoji font), bubblewrap and slirp4netns (the Bash sandbox and its
# outbound-only network), through apt.
#
# Safe to run again and again on the same checkout: each part has a stamp of what it was installed from, and when
# nothing it depends on changed (see install_inputs) it only checks that the install is still there and returns in
# about a second. Installing the package never removes the test packages: scripts/lab.sh after scripts/test.sh
# keeps them and installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
STAMP=.venv/.jupyter-agent-install
TEST_STAMP=.venv/.jupyter-agent-install-test
LABEXT=.venv/share/jupyter/labextensions/jupyter-agent

install_inputs() {
  # Everything the Python install and the labextension build read; a change to any of them reinstalls.
  {
    .venv/bin/python -c 'import sys; print(sys.version)'
    sha256sum scripts/install.sh pyproject.toml install.json
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
      git ls-files -z --cached --others --exclude-standard labextension
    else
      find labextension \( -name node_modules -o -name lib -o -name .yarn \) -prune -o -type f -print0
    fi | sort -z | xargs -0 sha256sum
  } 2>/dev/null | sha256sum | cut -d' ' -f1
}

test_inputs() {
  # What the test packages are installed from: the Python version, pyproject.toml and this script.
  { .venv/bin/python -c 'import sys; print(sys.version)'; sha256sum scripts/install.sh pyproject.toml; } \
    2>/dev/null | sha256sum | cut -d' ' -f1
}

installed() {
  [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(install_inputs)" ] && [ -x .venv/bin/jupyter ] \
    && [ -f "$LABEXT/package.json" ] && [ ! -L "$LABEXT" ] \
    && .venv/bin/python -c 'import jupyter_agent' >/dev/null 2>&1
}

test_packages_installed() {
  [ -f "$TEST_STAMP" ] && [ "$(cat "$TEST_STAMP")" = "$(test_inputs)" ] \
    && .venv/bin/python -c 'import pytest, playwright' >/dev/null 2>&1
}

requirements() {
  # The package's dependencies and, with "test", the test extra's, one per line, read from pyproject.toml.
  .venv/bin/python - "$@" <<'EOF'
import sys, tomllib

with open("pyproject.toml", "rb") as handle:
    project = tomllib.load(handle)["project"]
print("\n".join(project["dependencies"] + [r for extra in sys.argv[1:] for r in project["optional-dependencies"][extra]]))
EOF
}

STARTED=$SECONDS
say() { echo "jupyter_agent: $*"; }  # one short line per step, so a long install never looks stuck

if [ ! -x .venv/bin/python ]; then
  say "creating .venv with $("$PYTHON" --version 2>&1) …"
  "$PYTHON" -m venv .venv
fi
export PATH="$PWD/.venv/bin:$PATH"  # the build tools call jlpm / jupyter-builder by name

if installed; then
  say "already installed, nothing changed (delete $STAMP to force a reinstall)"
else
  # Earlier versions of this script replaced $LABEXT with a link into jupyter_agent/labextension; pip then
  # wrote install.json through the link into the build folder and the next build packed that file twice
  # ("A second file is being added to the wheel archive"). Undo both; the editable install below copies the
  # built extension into $LABEXT as real files, so nothing ever writes into the build folder.
  if [ -L "$LABEXT" ]; then rm "$LABEXT"; fi
  rm -f jupyter_agent/labextension/install.json
  rm -f "$STAMP"
  say "updating pip …"
  .venv/bin/python -m pip install --quiet --upgrade pip
  # The package was installed as `jupyter_agent` before it took the name jupyter-claude-agent: two installs of
  # one checkout would register the pytest plugin twice.
  if .venv/bin/python -m pip show --quiet jupyter_agent >/dev/null 2>&1; then
    .venv/bin/python -m pip uninstall --quiet --yes jupyter_agent
  fi
  say "installing the package and its dependencies, and building its JupyterLab extension with Node (a few minutes the first time) …"
  .venv/bin/python -m pip install --quiet -e .
  install_inputs >"$STAMP"
  say "installed the package and its JupyterLab extension into .venv ($((SECONDS - STARTED)) s)"
fi

if [ "${1:-}" != "--test" ]; then
  exit 0
fi

if test_packages_installed; then
  say "test packages already installed, nothing changed"
else
  rm -f "$TEST_STAMP"
  say "installing the test packages (pytest, Playwright, Notebook 7, ruff, pyright, …) …"
  # With the package's own requirements in the same resolve, so a test package cannot move one out of its range;
  # the package itself is not rebuilt.
  .venv/bin/python -m pip install --quiet -r <(requirements test)
  test_inputs >"$TEST_STAMP"
fi

# Third-party MCP servers from npm that the MCP tests run against, locked in tests/fixtures/mcp-npm.
MCP_NPM=tests/fixtures/mcp-npm
if [ ! "$MCP_NPM/node_modules/.package-lock.json" -nt "$MCP_NPM/package-lock.json" ]; then
  say "installing the npm MCP servers the tests talk to ($MCP_NPM) …"
  npm ci --prefix "$MCP_NPM" --no-audit --no-fund --no-update-notifier --loglevel=error >/dev/null
fi
# The MCP Inspector's CLI, the second client of `%agent serve` (tests/kernel/test_serve_inspector.py).
MCP_INSPECTOR=tests/fixtures/mcp-inspector
if [ ! "$MCP_INSPECTOR/node_modules/.package-lock.json" -nt "$MCP_INSPECTOR/package-lock.json" ]; then
  say "installing the MCP Inspector's CLI, a client of %agent serve in the tests ($MCP_INSPECTOR) …"
  npm ci --prefix "$MCP_INSPECTOR" --no-audit --no-fund --no-update-notifier --loglevel=error >/dev/null
fi
# Third-party MCP servers from PyPI that require an `mcp` older than the package's own: a venv of their own (a
# server is a separate process, so its dependencies never meet the package's). Remade when the pins change.
MCP_PYPI=.venv-mcp-servers
MCP_PYPI_PINS="mcp-server-sqlite==2025.4.25 mcp-server-calculator==0.2.1"
if [ "$(cat "$MCP_PYPI/.pins" 2>/dev/null)" != "$MCP_PYPI_PINS" ]; then
  say "making $MCP_PYPI for the PyPI MCP servers the tests talk to …"
  rm -rf "$MCP_PYPI"
  .venv/bin/python -m venv "$MCP_PYPI"
  # shellcheck disable=SC2086  # the pins are words
  "$MCP_PYPI/bin/python" -m pip install --quiet --disable-pip-version-check $MCP_PYPI_PINS
  echo "$MCP_PYPI_PINS" >"$MCP_PYPI/.pins"
fi
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium chromium-driver)
fc-list 2>/dev/null | grep -qi "color emoji" || missing+=(fonts-noto-color-emoji)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v slirp4netns >/dev/null 2>&1 || missing+=(slirp4netns)
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" != "0" ]; then
    command -v sudo >/dev/null 2>&1 || {
      echo "jupyter_agent: the tests need Debian packages ${missing[*]}; run as root or install sudo" >&2
      exit 1
    }
    SUDO="sudo"
  fi
  say "installing ${missing[*]} with apt …"
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
say "test install done ($((SECONDS - STARTED)) s)"
