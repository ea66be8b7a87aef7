"""The docs' reference pages and `%agent help` come from the same tables: every run flag, subcommand, setting and
tool is in the pages the docs build writes (docs/conf.py), and the help lists the same rows as the magics page,
so neither can drift from the package (this replaced the README's command table, checked the same way)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import jupyter_agent
from jupyter_agent.builtin_tools.catalog import OPT_IN_TOOLS, builtin_tools
from jupyter_agent.host.commands import SUBCOMMANDS, help_report, reference_pages
from jupyter_agent.host.options import RUN_FLAGS
from jupyter_agent.settings import AgentSettings

DOCS = Path(jupyter_agent.__file__).parent.parent / "docs"


def docs_conf() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_conf", DOCS / "conf.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_build_writes_the_generated_pages_and_the_index_lists_them(tmp_path: Path) -> None:
    written = docs_conf().write_reference_pages(tmp_path)
    assert {page.name: page.read_text(encoding="utf-8") for page in written} == {
        f"{name}.md": text + "\n" for name, text in reference_pages().items()
    }
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for name in reference_pages():
        assert f"reference/{name}\n" in index
    assert ":glob:\n\n*\n" in index  # a new page in docs/ joins the site without an edit here


def md(text: str) -> str:
    """Text as a Markdown table cell holds it: pipes escaped, on one line."""
    return " ".join(text.replace("|", "\\|").split())


def test_every_flag_subcommand_setting_and_tool_is_in_the_reference() -> None:
    pages = reference_pages()
    for flag in RUN_FLAGS:
        assert f"| `{f'{flag.flag} {flag.metavar}'.rstrip()}` | {md(flag.help)} |" in pages["magics"]
    for command in SUBCOMMANDS:
        assert f"| `{command.usage}` | {md(command.help)} |" in pages["magics"]
    for name, trait in AgentSettings.class_own_traits(config=True).items():
        assert re.search(
            rf"^\| `{name}` \| {type(trait).__name__} \|", pages["settings"], flags=re.MULTILINE
        ), name
    tools = [*builtin_tools(), *(tool for opt_in in OPT_IN_TOOLS for tool in opt_in.make())]
    for tool in tools:
        assert f"| `{tool.name}` |" in pages["tools"], tool.name
    for tool in builtin_tools():
        row = next(line for line in pages["tools"].splitlines() if line.startswith(f"| `{tool.name}` |"))
        for field in tool.to_param()["input_schema"].get("properties", {}):
            assert f"`{field}`" in row, (tool.name, field)


def test_help_lists_the_rows_of_the_magics_page_short_list_first() -> None:
    report = help_report()
    magics = reference_pages()["magics"]
    lines_page = re.findall(r"^\| `(%agent [^`]*)` \|", magics, flags=re.MULTILINE)
    text = report.text
    section = text.split("%agent lines\n", 1)[1].split("\n\n", 1)[0]
    lines_help = [line.strip().split("  ")[0] for line in section.splitlines() if line.startswith("  %agent")]
    assert lines_help == lines_page
    assert text.startswith("Start here\n  %%agent [options]")
    first = text.split("\n\n", 1)[0]
    assert [line.split()[1] for line in first.splitlines()[2:]] == [
        "status",
        "review",
        "undo",
        "reset",
        "help",
    ]
    for name in AgentSettings.class_own_traits(config=True):
        assert (
            re.search(rf"^  {name}( |$)", text, flags=re.MULTILINE) and f"<code>{name}</code>" in report.html
        )
    for flag in RUN_FLAGS:
        assert flag.flag in report.html


def test_help_html_escapes_and_never_breaks_a_usage_mid_word() -> None:
    html = help_report().html
    assert "<script" not in html and "&lt;name&gt;" in html  # "AgentMagics.<name>" is text, not a tag
    assert html.count('white-space:nowrap"><code>%agent status</code>') == 2  # the short list and the table


def test_help_gives_each_setting_its_first_sentence_whole() -> None:
    text = help_report().text
    allow = next(line for line in text.splitlines() if line.startswith("  allow "))
    assert allow.split(None, 1)[1] == "Permission allow rules, e.g. ['Edit(src/**)', 'Bash(git status*)']"
