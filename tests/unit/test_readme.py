"""The README is a landing page: short, its first command the one that runs the demo, the sections the lead
fills kept as headings, and every link to the docs pointing at a page that exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short_and_starts_with_the_demo_command() -> None:
    assert len(README.splitlines()) <= 250
    first_command = re.search(r"```bash\n(.+)\n", README)
    assert first_command is not None and first_command.group(1) == "bash scripts/lab.sh"


def test_the_readme_keeps_its_sections() -> None:
    headings = re.findall(r"^## (.+)$", README, flags=re.MULTILINE)
    for kept in (
        "Install",
        "Using it",
        "Claude Code projects",
        "Outside agents",
        "Run the tests",
        "Read more",
    ):
        assert kept in headings, kept
    assert "bash scripts/test.sh" in README and "bash scripts/docs.sh" in README
    assert "base_url" in README and "api_key_env" in README and "bedrock" in README


def test_every_relative_link_in_the_readme_exists() -> None:
    links = re.findall(r"\]\((?!https?:)([^)#]+)(?:#[^)]*)?\)", README)
    assert links
    missing = [link for link in links if not (ROOT / link).exists()]
    assert missing == []
