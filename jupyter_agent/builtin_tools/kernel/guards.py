"""What the read-only kernel tools (Inspect, Debug, ListVariables) must not open, and when they must ask.

The kernel's namespace holds more than the user's data: `exit`, `get_ipython` and `In`/`Out` lead into IPython's
shell, from there to the kernel (its session holds the HMAC key that signs every message), the magics registry
and this agent (its model client holds the API key). No `__dunder__` is needed on that path
(`exit._ip.magics_manager.registry[…]._agent._session.client`), so refusing dunders is not enough: these tools
refuse any object whose type belongs to those packages. A look at a credential (an environment variable the
secret registry names, an attribute such as `api_key`, a variable whose value holds a known secret) asks first.
"""

from __future__ import annotations

import re
import types
from typing import Any

from ...base.errors import ToolError
from ...masking import REGISTRY

#: Top-level packages whose objects are the kernel's or the agent's machinery, not the user's data.
INTERNAL_PACKAGES = frozenset(
    {
        "IPython", "ipykernel", "jupyter_client", "jupyter_core", "jupyter_server", "jupyter_agent", "anthropic",
        "httpx", "httpcore", "zmq", "tornado", "traitlets", "comm", "ipywidgets", "mcp",
    }
)  # fmt: skip
_CREDENTIAL_NAME = re.compile(
    r"api_?key|apikey|token|secret|passw(or)?d|credential|private_?key|auth|session_?key|hmac", re.IGNORECASE
)


def _package(kind: type) -> str:
    module = type.__getattribute__(kind, "__module__")
    return module.split(".", 1)[0] if isinstance(module, str) else ""


def is_internal(value: object) -> bool:
    """An object of the kernel's or the agent's machinery (a bound method counts as its object)."""
    kind = type(value)
    if kind is types.MethodType:
        return is_internal(object.__getattribute__(value, "__self__"))
    return _package(kind) in INTERNAL_PACKAGES


def refuse_internal(value: object, where: str) -> None:
    if is_internal(value):
        raise ToolError(
            "INVALID_ARGS",
            f"'{where}' is the kernel's or the agent's own object ({type(value).__module__}."
            f"{type(value).__qualname__}); Inspect does not open IPython's shell, the kernel, its session or "
            "connection, or the agent's client and settings. Inspect the user's own variables, or use RunCode, "
            "which asks the user first",
        )


def names_credential(name: str) -> bool:
    """A variable, key or attribute name that says it holds a credential (`api_key`, `token`, `DB_PASSWORD`):
    its value is not shown unasked (ListVariables, Debug's locals, the since-last-turn note)."""
    return bool(_CREDENTIAL_NAME.search(name)) or REGISTRY.is_secret_name(name)


#: What is shown in place of the value of a variable `names_credential` picks out.
CREDENTIAL_HIDDEN = "(value not shown: the name says it holds a credential; Inspect asks the user first)"


def credential_reason(root: str, steps: list[tuple[str, Any]], value: object) -> str | None:
    """Why inspecting this path reads a credential, or None."""
    for kind, step in [("name", root), *steps]:
        if not isinstance(step, str):
            continue
        if kind == "item" and (REGISTRY.is_secret_name(step) or _CREDENTIAL_NAME.search(step)):
            return f"it reads '{step}', which holds a credential"
        if kind in ("name", "attr") and (step == "environ" or _CREDENTIAL_NAME.search(step)):
            return f"it reads '{step}', which may hold credentials"
    if isinstance(value, str | bytes) and value:
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if REGISTRY.scanner().spans(text[:1_000_000]):  # cut-ok: a bound on the search, nothing shown
            return f"what '{root}…' leads to holds a secret"
    return None
