#!/usr/bin/env bash
# Builds the documentation site from docs/ into docs/_build/html: Sphinx with MyST Markdown and the PyData theme,
# warnings as errors (every warning is listed before it fails: --keep-going). docs/conf.py writes the reference
# pages (docs/reference/: magics, settings, tools) from the package's own tables at each build.
#
# Installs what it needs itself: the package (scripts/install.sh, when .venv has none) and the `docs` extra of
# pyproject.toml, with a stamp of what that was installed from, so a second run skips the install in under a second.
# Extra arguments go to sphinx-build (e.g. -b linkcheck).
set -euo pipefail
cd "$(dirname "$0")/.."

DOCS_STAMP=.venv/.jupyter-agent-install-docs

docs_inputs() {
  { .venv/bin/python -c 'import sys; print(sys.version)'; sha256sum scripts/docs.sh pyproject.toml; } \
    2>/dev/null | sha256sum | cut -d' ' -f1
}

if ! .venv/bin/python -c 'import jupyter_agent' >/dev/null 2>&1; then
  bash scripts/install.sh
fi
if [ -f "$DOCS_STAMP" ] && [ "$(cat "$DOCS_STAMP")" = "$(docs_inputs)" ] \
  && .venv/bin/python -c 'import sphinx, myst_parser, pydata_sphinx_theme' >/dev/null 2>&1; then
  echo "jupyter_agent docs: the docs packages are installed, nothing changed"
else
  echo "jupyter_agent docs: installing the docs extra (sphinx, myst-parser, pydata-sphinx-theme) into .venv …"
  rm -f "$DOCS_STAMP"
  .venv/bin/python - <<'PY' >.venv/.jupyter-agent-docs-requirements.txt
import tomllib

with open("pyproject.toml", "rb") as handle:
    print("\n".join(tomllib.load(handle)["project"]["optional-dependencies"]["docs"]))
PY
  .venv/bin/python -m pip install --quiet -r .venv/.jupyter-agent-docs-requirements.txt
  docs_inputs >"$DOCS_STAMP"
fi
echo "jupyter_agent docs: building docs/_build/html (warnings are errors) …"
.venv/bin/python -m sphinx -W --keep-going -q -b html docs docs/_build/html "$@"
echo "jupyter_agent docs: done — open docs/_build/html/index.html"
