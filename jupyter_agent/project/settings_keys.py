"""The settings-file keys beyond permissions and hooks that this package honours: `env`, `outputStyle`, and the
approval of a project's `.mcp.json` servers (`enableAllProjectMcpServers`, `enabledMcpjsonServers`,
`disabledMcpjsonServers`), read as Claude Code's settings reference defines them.

What they mean is decided elsewhere: `env` reaches the commands run for the project (hooks, Bash), never the
kernel's own environment; the output style goes into the system prompt (`output_styles.py`); the approvals
decide which servers of `.mcp.json` start (`mcp_offer.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..base.json_values import is_array, is_object

#: A name a process environment can hold (`env` keys outside it are refused, as a shell would).
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Warn = Callable[[str, str], None]


@dataclass(frozen=True, kw_only=True)
class SettingsKeys:
    #: `env`: variables for the commands run for the project, in the file's order.
    env: tuple[tuple[str, str], ...] = ()
    #: `outputStyle`: the name of the output style to answer in.
    output_style: str | None = None
    #: `enableAllProjectMcpServers`: every server of the project's `.mcp.json` is approved (None: not said).
    mcp_enable_all: bool | None = None
    #: `enabledMcpjsonServers` / `disabledMcpjsonServers`: servers of `.mcp.json` approved / refused by name.
    mcp_enabled: tuple[str, ...] = ()
    mcp_disabled: tuple[str, ...] = ()

    @property
    def widens(self) -> bool:
        """Whether a project must be trusted before these keys apply (env, a style, an approval)."""
        return bool(self.env or self.output_style or self.mcp_enable_all or self.mcp_enabled)


def read_settings_keys(data: Mapping[str, object], warn: Warn) -> SettingsKeys:
    """The keys of one settings file's JSON object; a value of the wrong type is one warning and is ignored."""
    enable_all = data.get("enableAllProjectMcpServers")
    if enable_all is not None and not isinstance(enable_all, bool):
        warn("enableAllProjectMcpServers", f"expected true or false, got {enable_all!r}; ignored")
        enable_all = None
    style = data.get("outputStyle")
    if style is not None and (not isinstance(style, str) or not style.strip()):
        warn("outputStyle", f"expected the name of an output style, got {style!r}; ignored")
        style = None
    return SettingsKeys(
        env=_env(data.get("env"), warn),
        output_style=style.strip() if isinstance(style, str) else None,
        mcp_enable_all=enable_all,
        mcp_enabled=_names(data.get("enabledMcpjsonServers"), "enabledMcpjsonServers", warn),
        mcp_disabled=_names(data.get("disabledMcpjsonServers"), "disabledMcpjsonServers", warn),
    )


def _env(value: object, warn: Warn) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not is_object(value):
        warn("env", f"expected an object of NAME: value, got {type(value).__name__}; ignored")
        return ()
    found: list[tuple[str, str]] = []
    for name, item in value.items():
        if not _ENV_NAME.fullmatch(name):
            warn(f"env.{name}", "is not an environment variable name (letters, digits, _); skipped")
        elif isinstance(item, bool) or not isinstance(item, str | int | float):
            warn(f"env.{name}", f"expected a string, got {type(item).__name__}; skipped")
        else:
            found.append((name, item if isinstance(item, str) else str(item)))
    return tuple(found)


def _names(value: object, key: str, warn: Warn) -> tuple[str, ...]:
    if value is None:
        return ()
    if not is_array(value):
        warn(key, f"expected a list of server names, got {type(value).__name__}; ignored")
        return ()
    names: list[str] = []
    for index, item in enumerate(value):
        if isinstance(item, str) and item:
            names.append(item)
        else:
            warn(f"{key}[{index}]", f"expected a server name, got {item!r}; skipped")
    return tuple(names)
