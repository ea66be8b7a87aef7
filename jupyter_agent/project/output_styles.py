"""Claude Code's output styles: Markdown files in `~/.claude/output-styles/` (yours) and a project's
`.claude/output-styles/`, chosen by name with the `outputStyle` setting. Front matter as Claude Code reads it:
`name` (the file's name without `.md` when missing), `description`, `keep-coding-instructions` (false unless true).

The style's text goes into the system prompt (`agent/prompt.py`), so a project's style is used only once the
project is trusted: it is other people's text, and trust is the user's consent to let it instruct the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..agent.prompt import OutputStyle
from .definitions import DefinitionDir
from .markdown_file import Problems, read_markdown

STYLES_DIR = "output-styles"
#: Claude Code's name for its own behaviour; choosing it means no style.
DEFAULT_STYLE = "default"


def load_output_styles(where: Sequence[DefinitionDir], problems: Problems) -> dict[str, OutputStyle]:
    """Every style of the `where` directories by name (a later directory's over an earlier one's)."""
    styles: dict[str, OutputStyle] = {}
    for place in where:
        folder = place.path / STYLES_DIR
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            read = read_markdown(path, place.areas, problems)
            if read is None:
                continue
            name = read.meta.get("name")
            name = name.strip() if isinstance(name, str) and name.strip() else path.stem
            keep = read.meta.get("keep-coding-instructions", False)
            if not isinstance(keep, bool):
                problems.warn(
                    path, "keep-coding-instructions", f"expected true or false, got {keep!r}; false used"
                )
                keep = False
            if not read.body.strip():
                problems.warn(path, "(body)", "the style has no text; skipped")
                continue
            styles[name] = OutputStyle(name=name, text=read.body, keep_coding_instructions=keep)
    return styles


def chosen_style(
    name: str | None, styles: dict[str, OutputStyle], source: Path | None, problems: list[str]
) -> OutputStyle | None:
    """The style `outputStyle` names (case as written, else case-insensitively), or None with a line saying why."""
    if name is None or name.lower() == DEFAULT_STYLE:
        return None
    found = styles.get(name) or next((s for n, s in styles.items() if n.lower() == name.lower()), None)
    if found is None:
        known = ", ".join(sorted(styles)) or "none"
        problems.append(
            f"jupyter_agent: {source}: outputStyle: no output style named {name!r} in output-styles/ (found: {known}; "
            "Claude Code's built-in Explanatory and Learning are not offered here); the default answer style is used"
        )
    return found
