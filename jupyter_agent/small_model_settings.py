"""The settings of the small, fast model's side work, apart from `settings.py` (which `AgentSettings` gathers:
it inherits these, so they are `%config AgentMagics.small_model` like any other)."""

from __future__ import annotations

from traitlets import Bool, Unicode
from traitlets.config import Configurable


class SmallModelSettings(Configurable):
    """Which model does side work, and whether WebFetch hands the page to it."""

    small_model = Unicode(
        None,
        allow_none=True,
        help="The small, fast model of side requests (WebFetch's extraction), on the same endpoint; None: the "
        "newest Haiku (the session's model when it is named the endpoint's own way, e.g. on Bedrock).",
    ).tag(config=True)
    web_fetch_extract = Bool(
        True,
        help="WebFetch answers its prompt from the page with the small model and gives the main model that "
        "answer (priced into the run, masked like every request); False gives the main model the page itself, cut "
        "to 100,000 characters.",
    ).tag(config=True)
