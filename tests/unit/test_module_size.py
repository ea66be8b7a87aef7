"""No module of the package over 400 lines: past that, a module has more than one job (split it by job)."""

from __future__ import annotations

from pathlib import Path

import jupyter_agent

PACKAGE = Path(jupyter_agent.__file__).parent
LIMIT = 400


def test_no_module_of_the_package_is_over_400_lines() -> None:
    sizes = {
        str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert len(sizes) > 100  # the package was found
    over = {name: lines for name, lines in sizes.items() if lines > LIMIT}
    assert not over, f"modules over {LIMIT} lines (split each by job): {over}"
