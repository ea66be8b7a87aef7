#!/usr/bin/env bash
# Mutation testing (mutmut 3) of the safety-critical modules, each group of modules against its own tests.
#
#   bash scripts/mutation.sh                 # every group, one after the other (tens of minutes)
#   bash scripts/mutation.sh replace html    # some groups
#   bash scripts/mutation.sh --list          # the groups, their modules and test files
#
# Prints each group's score (killed / mutants), every survivor with its diff and the argument recorded for it
# in scripts/mutation-survivors.txt (equivalent, or accepted and why), and the overall score. Exits non-zero
# below 90% or when a survivor has no recorded argument. Runs niced, one mutant at a time (MUTATION_JOBS=N
# for more); work directories go to $MUTATION_WORKDIR (default /tmp/jupyter_agent-mutation).
# Not part of scripts/test.sh: it takes far longer than the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-.venv/bin/python}"
if ! "$PYTHON" -c "import mutmut" 2>/dev/null; then
  echo "mutmut is not installed: it comes with the test packages (bash scripts/install.sh --test)" >&2
  exit 2
fi
exec "$PYTHON" scripts/mutation.py "$@"
