"""Tools that reach the web: WebFetch."""

from __future__ import annotations

from .tool import WebFetch, WebFetchInput

__all__ = ["WebFetch", "WebFetchInput"]
