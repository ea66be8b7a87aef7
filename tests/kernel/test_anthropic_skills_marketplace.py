"""Issue #44, Done-when: a repository laid out as Anthropic's public skills (github.com/anthropics/skills) loads
in a real kernel and lists its skills as Claude Code lists them.

That repository is a plugin marketplace: `.claude-plugin/marketplace.json` names plugins whose `source` is the
repository itself (`"./"`, `"strict": false`) with a `skills` array each, and every skill is a
`skills/<name>/SKILL.md` (with a `license:` key and a LICENSE.txt beside it). Claude Code reads a plugin's
`skills/` folder, not the array: each of those plugins lists every skill of the repository under its own name
(anthropics/skills issues #189, #919 and #1087 report it so), and so does this package. The files are written
here in that shape (tests/fixtures/anthropic_skills_shape/ says why none is copied)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from frontend import AgentKernel

from jupyter_agent.testing import Text, Turn

pytestmark = pytest.mark.kernel

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "anthropic_skills_shape"

MARKET = {
    "name": "anthropic-agent-skills",
    "owner": {"name": "Sample Owner"},
    "metadata": {"description": "Example skills", "version": "1.0.0"},
    "plugins": [
        {"name": "document-skills", "source": "./", "strict": False, "skills": ["./skills/pdf"]},
        {
            "name": "example-skills",
            "source": "./",
            "strict": False,
            "skills": ["./skills/brand-guidelines", "./skills/skill-creator"],
        },
    ],
}
SKILLS = ("brand-guidelines", "pdf", "skill-creator")


def test_anthropics_skills_marketplace_lists_every_skill_under_each_plugin_as_claude_code_does(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "marketplace.json").write_text(json.dumps(MARKET, indent=2))
    for name in SKILLS:
        folder = tmp_path / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text((FIXTURE / f"{name}.md").read_text())
        (folder / "LICENSE.txt").write_text("Terms of the sample skill.\n")
    (tmp_path / "template").mkdir()  # the repository's template is no skill: it is not under skills/
    (tmp_path / "template" / "SKILL.md").write_text((FIXTURE / "template.md").read_text())
    enabled = {"enabledPlugins": {f"{p['name']}@anthropic-agent-skills": True for p in MARKET["plugins"]}}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(enabled))
    frontend, _ = agent_kernel([Turn(blocks=[Text("ok")])], env={"HOME": str(tmp_path / "home")})
    assert frontend.run("%agent trust").text().startswith(f"trusted {tmp_path}")
    frontend.run("%agent reset")
    listed = frontend.run("%agent plugins").text()
    for plugin in ("document-skills", "example-skills"):
        assert f"  skills: {', '.join(f'{plugin}:{s}' for s in SKILLS)}" in listed, listed
    assert "skipped" not in listed and "template" not in listed
    skills = frontend.run("%agent skills").text().splitlines()
    plugin_skills = sorted(line.split()[0] for line in skills if ":" in line.split()[0])
    assert plugin_skills == sorted(f"/{p}:{s}" for p in ("document-skills", "example-skills") for s in SKILLS)
    assert not [line for line in skills if line.startswith("/template")]
