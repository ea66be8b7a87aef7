#!/usr/bin/env bash
# The sandbox-related unit and kernel tests again as a machine WITHOUT bubblewrap sees them (a fresh Linux box
# where only the README's install ran, macOS, Windows): JUPYTER_AGENT_BWRAP, the one override of bwrap's path,
# points at a path that does not exist, which hides bwrap. Bash must then fail closed — every command asks and
# says "unsandboxed", an allow rule does not run it, a headless run refuses it with the hint — unless
# AgentMagics.bash_sandbox = "off". (scripts/test.sh runs everything with bwrap, which install.sh --test installs.)
#
# Usage: bash scripts/test_without_bwrap.sh [pytest args]   (after scripts/install.sh --test; about 2 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."

export JUPYTER_AGENT_BWRAP=/nonexistent/bwrap
.venv/bin/python - <<'PY'
from jupyter_agent.permissions.bubblewrap import check_sandbox

check = check_sandbox()
assert check.bubblewrap is None, "JUPYTER_AGENT_BWRAP did not hide bwrap"
print(f"jupyter_agent: {check.describe()}")
PY

exec .venv/bin/python -m pytest -n 2 \
  tests/unit/builtin_tools/test_bash_sandbox.py \
  tests/unit/builtin_tools/test_bash_tool.py \
  tests/unit/permissions/test_bubblewrap_command_line.py \
  tests/unit/permissions/test_sandbox_guards_protected_paths.py \
  tests/unit/permissions/test_sandbox_removes_new_command_files.py \
  tests/unit/tools/test_rules_through_dispatcher.py \
  tests/unit/tools/test_dispatcher.py \
  tests/unit/tools/test_hooks_never_lift_a_protection.py \
  tests/unit/ui/test_approval_text.py \
  tests/unit/agent/test_background_jobs.py \
  tests/unit/host/test_jobs_command.py \
  tests/kernel/test_bash_sandbox_kernel.py \
  "$@"
