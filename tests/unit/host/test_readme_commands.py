"""The README's `%agent` command table is generated from the subcommand table (`host/commands.py`), the same
rows `%agent help` prints; this test fails when they differ. `python tests/unit/host/test_readme_commands.py`
writes the table into the README."""

from __future__ import annotations

from pathlib import Path

import jupyter_agent
from jupyter_agent.host.commands import SUBCOMMANDS, commands_markdown, help_text
from jupyter_agent.host.options import RUN_FLAGS

README = Path(jupyter_agent.__file__).parent.parent / "README.md"
BEGIN = "<!-- %agent commands: generated from jupyter_agent/host/commands.py by tests/unit/host/test_readme_commands.py -->"
END = "<!-- end of %agent commands -->"


def _split(text: str) -> tuple[str, str, str]:
    head, rest = text.split(BEGIN + "\n", 1)
    table, tail = rest.split("\n" + END, 1)
    return head, table, tail


def test_the_readme_command_table_is_the_generated_one() -> None:
    _, table, _ = _split(README.read_text(encoding="utf-8"))
    assert table == commands_markdown(), "run: python tests/unit/host/test_readme_commands.py"


def test_the_generated_table_has_every_subcommand_and_flag_that_help_lists() -> None:
    table, help_lines = commands_markdown(), help_text()
    for command in SUBCOMMANDS:
        assert f"| `{command.usage}` | {command.help} |" in table
        assert command.usage in help_lines
    for flag in RUN_FLAGS:
        assert f"[{flag.flag}" in table.splitlines()[2]


if __name__ == "__main__":
    head, _, tail = _split(README.read_text(encoding="utf-8"))
    README.write_text(f"{head}{BEGIN}\n{commands_markdown()}\n{END}{tail}", encoding="utf-8")
