"""`@name`, `@cell:ID` and `@output:ID[:N]` in a request: what the user points at goes with the request."""

from __future__ import annotations

from .attach import Attached, attach_references, merged
from .parse import MAX_REFERENCES, Reference, find_references

__all__ = ["MAX_REFERENCES", "Attached", "Reference", "attach_references", "find_references", "merged"]
