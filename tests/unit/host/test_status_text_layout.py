"""`%agent status` as text (a terminal, a headless run): a value of several lines (the rules) stays in its
column, so each label stands alone at the left and every line of the value reads under the one before."""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell


def test_the_lines_of_a_long_value_stay_in_the_value_column(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_line_magic("agent", "deny Read(secret.txt)")
    shell.run_line_magic("agent", "deny Bash(curl *)")
    shell.run_line_magic("agent", "allow Edit(notes.md)")
    capsys.readouterr()
    shell.run_line_magic("agent", "status")
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("rules:"))
    rules = [lines[start][10:], *(line[10:] for line in lines[start + 1 :] if line.startswith(" " * 10))]
    assert len(rules) >= 3, lines
    assert [line.split()[0] for line in rules[:3]] == ["deny", "deny", "allow"]
    labels = [line.split(":")[0] for line in lines if line and not line.startswith(" ")]
    assert labels[:6] == ["model", "endpoint", "key", "mode", "rules", "runs"], labels
