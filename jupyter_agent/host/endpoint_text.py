"""`%agent status`'s endpoint and key rows: where the next run's requests go and where its key comes from, read
from the settings and the kernel's environment as they are now (the model client reads them again at each run,
`agent/client.py`). The key itself is never shown: only the name of the variable that holds it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..base.unset import said

if TYPE_CHECKING:
    from ..settings import AgentSettings

#: Where the Anthropic SDK sends requests when neither `base_url` nor ANTHROPIC_BASE_URL says otherwise.
DEFAULT_ENDPOINT = "https://api.anthropic.com"


def _first_variable(*names: str) -> str | None:
    return next((name for name in names if said(os.environ.get(name))), None)


def endpoint_text(settings: AgentSettings) -> str:
    """The address (or cloud and region) of the next run, and which setting or variable chose it."""
    if settings.provider == "bedrock":
        region = _first_variable("AWS_REGION", "AWS_DEFAULT_REGION")
        return (
            f"Bedrock ({os.environ[region]}, from {region})"
            if region
            else "Bedrock (no region: set AWS_REGION)"
        )
    if settings.provider == "vertex":
        region = os.environ.get("CLOUD_ML_REGION")
        project = os.environ.get("ANTHROPIC_VERTEX_PROJECT_ID")
        where = f"{region or 'no region: set CLOUD_ML_REGION'}, project {project or 'from gcloud'}"
        return f"Vertex AI ({where})"
    if settings.base_url:
        return f"{settings.base_url} (from %config AgentMagics.base_url)"
    from_env = os.environ.get("ANTHROPIC_BASE_URL")
    if from_env:
        return f"{from_env} (from ANTHROPIC_BASE_URL)"
    return f"{DEFAULT_ENDPOINT} (the default; ANTHROPIC_BASE_URL or AgentMagics.base_url changes it)"


def key_text(settings: AgentSettings) -> str:
    """Which variable the next run's credential comes from, by name only."""
    if settings.provider == "bedrock":
        source = _first_variable("AWS_BEARER_TOKEN_BEDROCK", "AWS_ACCESS_KEY_ID", "AWS_PROFILE")
        return (
            f"AWS credentials from {source}" if source else "AWS credentials from the AWS SDK's default chain"
        )
    if settings.provider == "vertex":
        source = _first_variable("GOOGLE_APPLICATION_CREDENTIALS")
        return f"Google credentials from {source}" if source else "Google application default credentials"
    if settings.api_key_env:  # set, or the run (and this status) refused it: `host.configure.api_key_from`
        return f"key from {settings.api_key_env} (AgentMagics.api_key_env; the value is never shown)"
    if os.environ.get("ANTHROPIC_API_KEY"):
        return "key from ANTHROPIC_API_KEY (the value is never shown)"
    if os.environ.get("ANTHROPIC_AUTH_TOKEN"):
        return "token from ANTHROPIC_AUTH_TOKEN (the value is never shown)"
    return (
        "none: set os.environ['ANTHROPIC_API_KEY'] in the kernel (it applies at the next run), or name "
        "another variable with %config AgentMagics.api_key_env"
    )
