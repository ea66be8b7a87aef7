"""One run of a Claude Code `type: "http"` hook: the event's JSON POSTed to its `url`, the response read as a
command hook's stdout is.

As the hooks reference says: header values fill `$VAR` / `${VAR}` only for the variables the hook lists in
`allowedEnvVars` (any other reference becomes an empty string, so a project's hook cannot send itself your
tokens); a 2xx response with an empty body is success, with a JSON object it decides as a command's JSON does;
another body, a non-2xx status, a failed connection or the `timeout` is a failure the user is told about while
the agent goes on — an http hook blocks only through its JSON (`decision`, `permissionDecision`, …). A redirect
is not followed: the event goes only to the url the settings name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

import httpx

from ..base.json_values import is_object
from .command_hook_run import MAX_OUTPUT_CHARS, CommandHook, HookRun, failed

#: `$NAME` or `${NAME}` in a header value.
_REFERENCE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def expand_header(value: str, allowed: tuple[str, ...], env: Mapping[str, str]) -> str:
    """The header value with each listed variable's value in place of its reference, others empty."""

    def filled(found: re.Match[str]) -> str:
        name = found.group(1) or found.group(2)
        return env.get(name, "") if name in allowed else ""

    return _REFERENCE.sub(filled, value)


async def run_http_hook(hook: CommandHook, body: bytes, env: Mapping[str, str]) -> HookRun:
    """POST the event once; what the endpoint answered, never an exception."""
    headers = {name: expand_header(value, hook.allowed_env, env) for name, value in hook.headers}
    headers["Content-Type"] = "application/json"
    try:
        async with httpx.AsyncClient(timeout=hook.timeout, follow_redirects=False) as client:
            response = await client.post(hook.url, content=body, headers=headers)
    except httpx.TimeoutException:
        return _failure(hook, f"no answer within {hook.timeout:g} s")
    except httpx.HTTPError as exc:
        return _failure(hook, f"the request failed ({type(exc).__name__}: {exc})")
    text = response.text[:MAX_OUTPUT_CHARS]
    if not response.is_success:
        return _failure(hook, f"it answered HTTP {response.status_code}", text)
    if not text.strip():
        return HookRun(hook=hook, code=0, stdout="", stderr="", output={})
    try:
        output = json.loads(text)
    except json.JSONDecodeError:
        output = None
    if not is_object(output):
        return _failure(hook, "its answer was not a JSON object", text)
    return HookRun(hook=hook, code=0, stdout=text, stderr="", output=dict(output))


def _failure(hook: CommandHook, why: str, text: str = "") -> HookRun:
    return HookRun(hook=hook, code=None, stdout=text, stderr="", output={}, failure=failed(hook, why))
