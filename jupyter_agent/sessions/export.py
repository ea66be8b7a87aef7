"""A saved session as Markdown (`%agent export`): the user's words, the agent's answers, each tool call and result.

The export is a saved file like the session's own, so it is masked the same way.

Tool results are cut (head kept) so a session that read large files stays a readable document; thinking is
left out (it is the model's scratchpad, and long). Code fences are made longer than any backtick run inside
them, so file contents cannot end a fence early.

The model's and the user's text is untrusted Markdown: a viewer that renders the file would run `<script>`,
load `<img src=…>` (a beacon that leaks data) or follow `javascript:` links. So `<` becomes `&lt;` (no raw
HTML survives), images become plain links, and `javascript:` / `data:` / `vbscript:` links lose their target.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from ..base.harness_texts import is_harness_text
from ..base.json_values import is_array, is_object
from ..masking import clip
from .log import mask_secret_values
from .store import SavedSession

#: The first line of every export: a file that starts so is an earlier export, which may be written over.
EXPORT_HEADING = "# Agent session "


class ExportRefused(ValueError):
    """`%agent export PATH` names a file that is not an earlier export: writing it would lose the user's data."""


def export_target(path: str | None, cwd: Path, session_id: str) -> Path:
    """Where `%agent export [PATH]` writes: PATH (relative to `cwd`), a new file in it when it is a directory,
    `agent-session-ID.md` in `cwd` without one. A file that exists is written over only when it is an
    earlier export (`%agent export notebook.ipynb` would otherwise replace the notebook with Markdown)."""
    from ..base.sandbox import resolve_path

    default = f"agent-session-{session_id}.md"
    target = resolve_path(path, cwd) if path else cwd / default
    if target.is_dir():
        target = target / default
    if target.exists() and not _is_export(target):
        raise ExportRefused(
            f"EXPORT_TARGET_EXISTS: '{target}' exists and is not an earlier `%agent export`, so it is left as "
            f"it is; give a new file name (e.g. `%agent export {default}`) or move that file first"
        )
    return target


def _is_export(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(len(EXPORT_HEADING)) == EXPORT_HEADING.encode()
    except OSError:
        return False


#: Characters of a tool result kept in the export.
RESULT_CHARS = 2_000


def _fence(text: str, lang: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if is_object(b)] if is_array(content) else []


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content", "")
    parts = _blocks(content)
    text = "\n".join(str(b.get("text", "")) for b in parts if b.get("type") == "text")
    images = sum(1 for b in parts if b.get("type") == "image")
    if images:
        text += f"\n[{images} image(s)]"
    return clip(text, RESULT_CHARS, marker=f"\n… [{max(len(text) - RESULT_CHARS, 0)} more characters]")


_IMAGE = re.compile(r"!\[([^\]]*)\]\(")
_SCRIPT_SCHEMES = ("javascript:", "data:", "vbscript:")
#: `[id]: destination` — a link reference definition, which `[text][id]` elsewhere turns into a link.
_REFERENCE = re.compile(r"^( {0,3}\[[^\]\n]+\]:[ \t]*)(\S+)", re.MULTILINE)


def neutralise_markdown(text: str) -> str:
    """Markdown with no raw HTML, no remote images and no script links (see the module docstring)."""
    text = text.replace("<", "&lt;")
    text = _IMAGE.sub(lambda m: f"[image: {m.group(1)}](", text)
    text = _REFERENCE.sub(lambda m: m.group(1) + ("#" if _runs_script(m.group(2)) else m.group(2)), text)
    return _without_script_links(text)


def _runs_script(destination: str) -> bool:
    """Whether a link to `destination` would run code, as a renderer reads it: character references decoded
    (`&#106;avascript:`), and the tabs, newlines and control characters browsers drop from a scheme ignored."""
    plain = "".join(c for c in html.unescape(destination) if c.isprintable() and not c.isspace())
    return plain.lower().startswith(_SCRIPT_SCHEMES)


def _without_script_links(text: str) -> str:
    """Each inline link `](destination)` that would run code becomes `](#)`; the destination ends at its
    matching parenthesis (`javascript:alert(1)` keeps no stray `)`), or at the line's end when unclosed."""
    kept: list[str] = []
    done = 0
    while (opening := text.find("](", done)) != -1:
        start = opening + 2
        end = _destination_end(text, start)
        if _runs_script(text[start:end].removesuffix(")")):
            kept.append(text[done:opening] + "](#)")  # cut-ok: the text before a link, kept whole
            done = end
        else:
            kept.append(text[done:start])
            done = start
    return "".join(kept) + text[done:]


def _destination_end(text: str, start: int) -> int:
    """The index after the `)` that closes a link opened just before `start` (nested pairs and `\\)` skipped)."""
    depth, index = 1, start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index + 1
        elif char == "\n":
            return index
        index += 1
    return len(text)


def _search_results(content: Any) -> str:
    """One line per page found (title and URL), or the search's error code."""
    if is_object(content):
        return f"(the search failed: {content.get('error_code', 'unavailable')})"
    pages = [page for page in content if is_object(page)] if is_array(content) else []
    return (
        "\n".join(f"- {page.get('title') or '(no title)'} — <{page.get('url', '')}>" for page in pages)
        or "(none)"
    )


def _tool_change(block: dict[str, Any]) -> str:
    """`+ Read` / `− web_search`: a mid-conversation tool change, by the tool's name."""
    tool = block.get("tool")
    name = ""
    if is_object(tool):
        definition = tool.get("definition")
        name = str(tool.get("name") or (definition.get("name") if is_object(definition) else "") or "?")
    return f"{'+' if block.get('type') == 'tool_addition' else '−'} `{name}`"


def _message_markdown(message: dict[str, Any]) -> list[str]:
    out: list[str] = []
    user = message["role"] == "user"
    texts: list[str] = []
    changes: list[str] = []
    for block in _blocks(message["content"]):
        kind = block.get("type")
        if kind == "text" and is_harness_text(str(block.get("text", ""))):
            quoted = "\n".join(f"> {line}" for line in neutralise_markdown(str(block["text"])).splitlines())
            out.append(f"*Told by the harness:*\n\n{quoted}")
        elif kind == "text" and str(block.get("text", "")).strip():
            texts.append(neutralise_markdown(str(block["text"]).strip()))
        elif kind in ("tool_addition", "tool_removal"):
            changes.append(_tool_change(block))
        elif kind == "tool_use":
            arguments = json.dumps(block.get("input", {}), ensure_ascii=False, indent=2)
            out.append(f"**Tool call** `{block.get('name', '?')}`\n\n{_fence(arguments, 'json')}")
        elif kind == "tool_result":
            failed = " (error)" if block.get("is_error") else ""
            out.append(f"**Result**{failed}\n\n{_fence(_result_text(block))}")
        elif kind == "server_tool_use":
            given = block.get("input")
            query = given.get("query", "") if is_object(given) else ""
            out.append(f"**Web search** {_fence(str(query))}")
        elif kind == "web_search_tool_result":
            out.append(f"**Search results**\n\n{_search_results(block.get('content'))}")
    if changes:
        out.append(f"*Tools changed:* {', '.join(changes)}")
    if texts:
        heading = "### User" if user else "### Agent" if message["role"] == "assistant" else "### System"
        out.insert(0, f"{heading}\n\n" + "\n\n".join(texts))
    return out


def session_markdown(saved: SavedSession) -> str:
    """The whole conversation as Markdown, with a header saying which session and what it cost."""
    lines = [
        f"{EXPORT_HEADING}{saved.id}",
        "",
        f"- Project: `{saved.project}`" if saved.project else "",
        f"- Notebook: `{saved.notebook}`" if saved.notebook else "",
        f"- Started: {saved.created}" if saved.created else "",
        f"- Runs: {len(saved.runs)} · cost ${saved.cost_usd:.4f}",
    ]
    if saved.resumed_from:
        lines.append(f"- Resumed from session {saved.resumed_from}")
    parts = ["\n".join(line for line in lines if line)]
    for number, earlier in enumerate(saved.compacted, 1):
        parts.extend(md for message in earlier for md in _message_markdown(message))
        parts.append(
            f"---\n\n*Compaction {number}: the conversation above was replaced by the summary below.*"
        )
    for message in saved.messages:
        parts.extend(_message_markdown(message))
    return mask_secret_values("\n\n".join(parts) + "\n")
