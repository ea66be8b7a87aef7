"""One registry of secret values, and the mask that keeps them out of model input, displays and saved files.

Secrets are masked where text leaves the kernel, with the secrets known then, rather than where each piece is
made: the request body (`agent/request_body.py`) masks everything sent to the model, the session file
(`sessions/log.py`) everything saved, the display gate (`ui/gate.py`) everything shown — display bundles, widget
state, terminal lines, page messages — and the command hooks (`tools/command_hooks.py`) and `%agent serve`
(`serve/listing.py`) what they hand out; the Dispatcher masks each tool result once more as it is made, as
defence in depth (`tests/unit/test_masking_sinks.py` names the six).

What counts as a secret:

- values registered explicitly with `register(name, value)` (the model client registers the API key or auth
  token it actually uses);
- the value of every environment variable whose name matches `patterns` (`ANTHROPIC_*`, `*_API_KEY`,
  `*_TOKEN`, `*PASSWORD*`, `AWS_*`, …; `AgentMagics.secret_env_patterns` replaces the list), except names
  known to hold no secret (`*_MODEL`, `*_BASE_URL`, `*_REGION`, …);
- the value of any environment variable that is a URL with a password (`postgres://user:pw@host/db`), and
  that password on its own;
- for the process's registry, the same of the environment the process *started* with (`startup_env`): a token
  popped from `os.environ` is still what a restarted kernel, or VerifyNotebook's fresh one, gets.

Values shorter than `MIN_SECRET_CHARS` (8) are ignored: masking `1` or `true` everywhere would garble every
output and protect nothing. The environment is read at each call, so `%env X_TOKEN=…` in a cell counts at
once. Any run of 8 or more characters of a secret, or of the secret reversed, is masked wherever it appears,
in the forms it takes inside JSON strings, Python reprs, HTML and URLs (`secret_scan`).

Text is cut only after it is masked: `clip` (head) and `cap_text` (head and tail) mask first, so a
cut never leaves a tail of a secret too short to recognise; nothing else in the package shortens text for the
model or a display (a test keeps it so).

What masking cannot do: a secret the model transforms (every other character, base64, an arithmetic on its
characters) is not recognised.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Collection, Iterable, Mapping
from typing import Any, cast
from urllib.parse import urlsplit

from .secret_scan import SecretScanner
from .startup_env import startup_environ

#: Environment variable names whose values are treated as secrets (shell-style patterns, case-insensitive).
DEFAULT_SECRET_ENV_PATTERNS: tuple[str, ...] = (
    "ANTHROPIC_*",
    "CLAUDE_*",
    "AWS_*",
    "*_API_KEY",
    "*_APIKEY",
    "*_TOKEN",
    "*_SECRET",
    "*_SECRET_KEY",
    "*_ACCESS_KEY",
    "*_PRIVATE_KEY",
    "*_CREDENTIALS",
    "*PASSWORD*",
    "*PASSWD*",
)

#: Names the patterns above catch that hold configuration, not credentials (masking a model name or a
#: region everywhere would only garble output). A password inside a URL value is still masked.
NOT_SECRET_ENV_PATTERNS: tuple[str, ...] = (
    "*_MODEL",
    "*_BASE_URL",
    "*_REGION",
    "AWS_PROFILE",
    "*_PROJECT_ID",
)

_REDACTED = "[redacted: "

#: Shorter values are not secrets worth masking, and masking them would garble ordinary text.
MIN_SECRET_CHARS = 8

_URL_WITH_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/@:]*:[^\s/@]+@[^\s]+")


def _compiled(patterns: Iterable[str]) -> re.Pattern[str] | None:
    """One case-insensitive regex for a list of shell-style patterns (None for an empty list)."""
    parts = [re.escape(p.upper()).replace(r"\*", ".*").replace(r"\?", ".") for p in patterns if p]
    return re.compile("|".join(f"(?:{p})" for p in parts)) if parts else None


def url_password(value: str) -> str | None:
    """The password of a URL with one (`scheme://user:password@host…`), else None."""
    match = _URL_WITH_PASSWORD.search(value)
    if match is None:
        return None
    try:
        return urlsplit(match.group(0)).password or None
    except ValueError:
        return None


class SecretRegistry:
    """The secret values to mask: those registered by name, and those of credential-like environment variables."""

    def __init__(
        self,
        *,
        patterns: Collection[str] = DEFAULT_SECRET_ENV_PATTERNS,
        environ: Mapping[str, str] | None = None,
        min_chars: int = MIN_SECRET_CHARS,
    ) -> None:
        self._lock = threading.Lock()
        self._environ = environ
        self.min_chars = min_chars
        self._registered: dict[str, str] = {}
        self._cache_key: tuple[tuple[str, str], ...] | None = None
        self._scanner = SecretScanner({})
        self._startup_cache: tuple[tuple[str, ...], dict[str, str]] | None = None
        self.patterns = tuple(patterns)

    @property
    def patterns(self) -> tuple[str, ...]:
        return self._patterns

    @patterns.setter
    def patterns(self, value: Iterable[str]) -> None:
        self._patterns = tuple(value)
        self._name_regex = _compiled(self._patterns)
        self._not_secret = _compiled(NOT_SECRET_ENV_PATTERNS)

    def register(self, name: str, value: str | None) -> None:
        """Mask `value` as `[redacted: name]` from now on (values shorter than `min_chars` are ignored)."""
        if value and len(value) >= self.min_chars:
            with self._lock:
                self._registered[value] = name

    def matches_patterns(self, name: str) -> bool:
        """True for an environment variable name the patterns call a credential (exceptions not applied)."""
        return bool(self._name_regex is not None and self._name_regex.fullmatch(name.upper()))

    def is_secret_name(self, name: str) -> bool:
        """True for a variable whose value is masked: it matches the patterns and is not known configuration."""
        return self.matches_patterns(name) and not (
            self._not_secret is not None and self._not_secret.fullmatch(name.upper())
        )

    def _secret_env(self, environ: Mapping[str, str]) -> dict[str, str]:
        """value → name for the environment variables that hold a secret (whole value, or a URL password)."""
        found: dict[str, str] = {}
        for name, value in environ.items():
            if len(value) < self.min_chars:
                continue
            password = url_password(value)
            if password is not None:
                found[value] = name
                if len(password) >= self.min_chars:
                    found.setdefault(password, name)
            elif self.is_secret_name(name):
                found[value] = name
        return found

    def secrets(self) -> dict[str, str]:
        """Every secret value known now, mapped to the name it is masked with: the registered ones, those of the
        environment now, and (for the process's registry) those of the environment it started with — a token the
        user popped from `os.environ` is still in what a restarted or fresh kernel (VerifyNotebook) gets."""
        if self._environ is None:
            found = self._startup_secrets()
            found.update(
                self._secret_env(os.environ)
            )  # an environment name says more than a registered label
        else:
            found = self._secret_env(self._environ)
        with self._lock:
            for value, name in self._registered.items():
                found.setdefault(value, name)
        return found

    def _startup_secrets(self) -> dict[str, str]:
        """The start-up environment's secrets, found once per list of patterns."""
        started = startup_environ()
        if started is None:
            return {}
        with self._lock:
            cached = self._startup_cache
        if cached is None or cached[0] != self._patterns:
            cached = (self._patterns, self._secret_env(started))
            with self._lock:
                self._startup_cache = cached
        return dict(cached[1])

    def scanner(self) -> SecretScanner:
        """The automaton for the secrets known now (rebuilt only when they change)."""
        secrets = self.secrets()
        key = tuple(sorted(secrets.items()))
        with self._lock:
            if key != self._cache_key:
                self._scanner = SecretScanner(secrets, min_run=self.min_chars)
                self._cache_key = key
            return self._scanner

    def mask(self, text: str) -> str:
        """`text` with every known secret, and every run of 8+ of its characters (also reversed, in any of its
        encoded forms), replaced by `[redacted: NAME]`."""
        if not text:
            return text
        return self.scanner().mask(text)

    def clip(self, text: str, limit: int, *, marker: str = "…") -> str:
        """The first `limit` characters of `text` masked, then `marker` if it was longer: masked before the cut,
        so no part of a secret too short to recognise is left at the end."""
        masked = self.mask(text)
        if len(masked) <= limit:
            return masked
        opened = masked.rfind(_REDACTED, 0, limit + len(_REDACTED) - 1)  # one that starts before the cut
        closed = masked.find("]", opened) if opened >= 0 else -1
        if opened >= 0 and closed >= limit:  # never cut a redaction in half: the reader should see it
            limit = closed + 1
        return masked[:limit] + marker

    def mask_data(self, value: Any) -> Any:
        """A JSON-like value (dicts, lists, strings, numbers) with every string, keys included, masked (the
        secrets read once for the whole value: a widget's state is masked at every change)."""
        return masked_with(self.scanner(), value)

    def scrubbed_environ(
        self, environ: Mapping[str, str] | None = None, *, keep: Collection[str] = ()
    ) -> dict[str, str]:
        """The environment for a command the model wrote: without any variable the patterns name (even
        configuration such as ANTHROPIC_BASE_URL, which a command has no use for) or whose value is a URL with a
        password, except the names in `keep`."""
        source = os.environ if environ is None else environ
        return {
            k: v
            for k, v in source.items()
            if k in keep or not (self.matches_patterns(k) or url_password(v) is not None)
        }


def masked_with(scanner: SecretScanner, value: Any) -> Any:
    """A JSON-like value with every string, keys included, masked by `scanner` (one reading of the secrets for a
    whole value)."""
    if isinstance(value, str):
        return scanner.mask(value)
    if isinstance(value, Mapping):
        items = cast("Mapping[object, object]", value)
        return {masked_with(scanner, k): masked_with(scanner, v) for k, v in items.items()}
    if isinstance(value, list | tuple):
        return [masked_with(scanner, v) for v in cast("list[object] | tuple[object, ...]", value)]
    return value


#: The process's registry: secrets are the process's, whichever session or display asks.
REGISTRY = SecretRegistry()


def register(name: str, value: str | None) -> None:
    """Mask `value` as `[redacted: name]` everywhere from now on."""
    REGISTRY.register(name, value)


def mask(text: str) -> str:
    """`text` with every known secret replaced by `[redacted: NAME]` — call this before displaying or saving."""
    return REGISTRY.mask(text)


def clip(text: str, limit: int, *, marker: str = "…") -> str:
    """`text` masked, then cut to `limit` characters (+ `marker`): the one way to shorten text for a reader."""
    return REGISTRY.clip(text, limit, marker=marker)


def shorten(text: str, width: int) -> str:
    """`text` masked, then fitted into `width` characters with `…` as the last one when it is longer."""
    return REGISTRY.clip(text, width - 1) if len(REGISTRY.mask(text)) > width else REGISTRY.mask(text)


def keep_tail(text: str, limit: int) -> str:
    """`text` masked, then its last `limit` characters from a line's start, saying how much is above (a view
    that follows a growing text: streamed tool input)."""
    text = REGISTRY.mask(text)
    if len(text) <= limit:
        return text
    kept = text[-limit:]
    newline = kept.find("\n")
    kept = kept[newline + 1 :] if newline >= 0 else kept  # cut-ok: masked first
    return f"… [{len(text) - len(kept)} characters above]\n{kept}"


def cap_text(text: str, max_chars: int, *, head_share: float = 0.6) -> str:
    """Keep the head and the tail, say how much was cut in between (errors are usually at the end).

    Secrets are masked first: a cut inside a secret would leave a part too short for any later mask to
    recognise, and that part would reach the model.
    """
    text = REGISTRY.mask(text)
    if len(text) <= max_chars:
        return text
    head = int(max_chars * head_share)
    tail = max_chars - head
    cut = len(text) - head - tail
    lines_cut = text[head : len(text) - tail].count("\n")
    return (
        text[:head]
        + f"\n… [{cut} characters ({lines_cut} lines) cut: output over {max_chars} characters] …\n"
        + text[len(text) - tail :]
    )


def mask_data(value: Any) -> Any:
    """`mask` applied to every string of a JSON-like value (a session record before it is written)."""
    return REGISTRY.mask_data(value)


def scrubbed_environ(
    environ: Mapping[str, str] | None = None, *, keep: Collection[str] = ()
) -> dict[str, str]:
    """The environment (default: os.environ) without the variables whose values are masked secrets."""
    return REGISTRY.scrubbed_environ(environ, keep=keep)
