"""WebFetch as the Claude Agent SDK does it: `http://` fetched as `https://` (not for an address or a local
name), and a page answered from memory for 15 minutes per URL, against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from dispatch_harness import Approvals, ToolHarness
from web_site import SiteHandler, serving

from jupyter_agent.builtin_tools.web import WebFetch
from jupyter_agent.builtin_tools.web.tool import CACHE_SECONDS, upgraded
from jupyter_agent.tools import Approve, PermissionPolicy, Rule


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def site() -> Iterator[str]:
    with serving() as port:
        SiteHandler.routes = {
            "/a": (200, {"Content-Type": "text/plain"}, b"page A"),
            "/b": (200, {"Content-Type": "text/plain"}, b"page B"),
        }
        yield f"http://127.0.0.1:{port}"


def test_a_page_is_fetched_once_in_15_minutes_and_again_after(site: str, tmp_path: Path) -> None:
    clock = _Clock()
    local = PermissionPolicy(mode="bypassPermissions", allow=[Rule.parse("WebFetch(domain:127.0.0.1)")])
    tools = ToolHarness(tmp_path, [WebFetch(clock=clock)], policy=local, approver=Approvals(Approve()))
    first = tools.call("WebFetch", url=f"{site}/a", prompt="the title")
    clock.now += CACHE_SECONDS - 1
    again = tools.call("WebFetch", url=f"{site}/a", prompt="another question")
    other = tools.call("WebFetch", url=f"{site}/b", prompt="the title")
    assert [path for path, _ in SiteHandler.seen] == ["/a", "/b"]  # the second /a came from memory
    assert (
        "page A" in first.content
        and "page A" in again.content
        and "Look in it for: another question" in (again.content)
    )
    assert "page B" in other.content
    clock.now += 2  # /a is now older than 15 minutes
    tools.call("WebFetch", url=f"{site}/a", prompt="the title")
    assert [path for path, _ in SiteHandler.seen] == ["/a", "/b", "/a"]


def test_a_cached_page_is_still_asked_for_when_the_rules_ask(site: str, tmp_path: Path) -> None:
    person = Approvals(Approve())
    ask = PermissionPolicy(mode="default", allow=[], ask=[Rule.parse("WebFetch(domain:127.0.0.1)")])
    tools = ToolHarness(tmp_path, [WebFetch()], policy=ask, approver=person)
    tools.call("WebFetch", url=f"{site}/a", prompt="x")
    tools.call("WebFetch", url=f"{site}/a", prompt="x")
    assert len(person.requests) == 2  # the cache saves the download, never the question


@pytest.mark.parametrize(
    ("url", "fetched"),
    [
        ("http://example.com/a?q=1#top", "https://example.com/a?q=1#top"),
        ("http://docs.python.org:8080/x", "https://docs.python.org:8080/x"),
        ("https://example.com/", "https://example.com/"),
        ("http://127.0.0.1:8000/a", "http://127.0.0.1:8000/a"),  # an address: as it is
        ("http://127.1/a", "http://127.1/a"),
        ("http://[::1]/a", "http://[::1]/a"),
        ("http://localhost:8888/a", "http://localhost:8888/a"),  # a local name
    ],
)
def test_http_is_upgraded_to_https_but_for_addresses_and_local_names(url: str, fetched: str) -> None:
    assert upgraded(url) == fetched
