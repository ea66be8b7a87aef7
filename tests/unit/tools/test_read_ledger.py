"""The read ledger: what the model has seen, so an edit never overwrites what someone else changed since."""

from __future__ import annotations

import pytest

from jupyter_agent.base.errors import ToolError
from jupyter_agent.tools.ledger import ReadLedger


def test_a_forgotten_file_must_be_read_again_before_an_edit() -> None:
    ledger = ReadLedger()
    ledger.record("/p/a.py", b"x = 1\n")
    ledger.record("/p/b.py", b"y = 2\n")
    ledger.forget("/p/a.py")
    assert not ledger.has_read("/p/a.py") and ledger.has_read("/p/b.py")
    with pytest.raises(ToolError) as refused:
        ledger.require_fresh("/p/a.py", b"x = 1\n", what="'a.py'", reread="Read it")
    assert refused.value.message == "'a.py' has not been read in this conversation; Read it first"
    assert refused.value.code == "NOT_READ"


def test_never_read_is_not_read_and_changed_since_the_read_is_stale_read() -> None:
    """Two codes, because the fixes differ: read it for the first time, or read it again (someone changed it)."""
    ledger = ReadLedger()
    with pytest.raises(ToolError) as never:
        ledger.require_fresh("/p/a.py", b"x = 1\n", what="'a.py'", reread="Read it")
    ledger.record("/p/a.py", b"x = 1\n")
    with pytest.raises(ToolError) as changed:
        ledger.require_fresh("/p/a.py", b"x = 2\n", what="'a.py'", reread="Read it")
    assert (never.value.code, changed.value.code) == ("NOT_READ", "STALE_READ")


def test_forgetting_a_file_never_read_is_fine() -> None:
    ledger = ReadLedger()
    ledger.forget("/p/never.py")
    assert not ledger.has_read("/p/never.py")
