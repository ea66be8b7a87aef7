"""The one usage error of `%agent …` subcommands, apart from their table so each subcommand's own module
can raise it (the magic shows it as a UsageError)."""

from __future__ import annotations


class CommandError(ValueError):
    """A usage mistake in `%agent …`; the magic shows it as a UsageError."""
