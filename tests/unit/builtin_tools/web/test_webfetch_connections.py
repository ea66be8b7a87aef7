"""What WebFetch's connections do that a user or an attacker would notice: HTTPS checked against the name
while the connection goes to the checked address, an endless page cut at the cap, a host that cannot be
resolved, a public address let through, and the refusal that names the rule to add."""

from __future__ import annotations

import asyncio
import ipaddress
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import trustme
from web_site import SiteHandler, serving

from jupyter_agent.base.errors import ToolError
from jupyter_agent.builtin_tools.web import addresses, http
from jupyter_agent.tools import PermissionPolicy, Rule

LOCAL = PermissionPolicy(allow=[Rule.parse("WebFetch(domain:127.0.0.1)")])


@pytest.fixture
def authority(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> trustme.CA:
    """A certificate authority WebFetch trusts for this test only (httpx reads SSL_CERT_FILE)."""
    ca = trustme.CA()
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    return ca


@contextmanager
def https_site(ca: trustme.CA, name: str) -> Iterator[int]:
    """An HTTPS server on 127.0.0.1 whose certificate (from `ca`) names only `name`."""
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(name).configure_cert(tls)
    with serving(tls) as port:
        SiteHandler.routes = {"/page": (200, {"Content-Type": "text/plain"}, b"over TLS")}
        yield port


def test_https_connects_to_the_checked_address_and_checks_the_certificate_against_the_name(
    authority: trustme.CA,
) -> None:
    with https_site(authority, "localhost") as port:
        page = asyncio.run(
            http.fetch(f"https://localhost:{port}/page", max_bytes=100, timeout=20, policy=LOCAL)
        )
    assert isinstance(page, http.Fetched) and page.body == b"over TLS"
    assert SiteHandler.seen[0][1]["Host"] == f"localhost:{port}"
    with https_site(authority, "other.example") as port, pytest.raises(ToolError) as refused:
        asyncio.run(http.fetch(f"https://localhost:{port}/page", max_bytes=100, timeout=20, policy=LOCAL))
    assert refused.value.code == "NETWORK_ERROR"
    assert refused.value.message.startswith(f"could not fetch https://localhost:{port}/page: ConnectError: ")
    assert "CERTIFICATE_VERIFY_FAILED" in refused.value.message
    assert SiteHandler.seen == []  # the handshake failed: no request reached the impostor


def test_a_page_that_never_ends_is_cut_at_the_cap_without_waiting_for_the_deadline() -> None:
    """The body is read as it arrives: past the cap the fetch returns what it has (not a TIMEOUT)."""
    with serving() as port:
        page = asyncio.run(http.fetch(f"http://127.0.0.1:{port}/drip", max_bytes=3, timeout=20, policy=LOCAL))
    assert isinstance(page, http.Fetched) and (page.body, page.truncated) == (b"xxx", True)


def test_a_slow_server_is_read_when_it_answers_within_the_deadline() -> None:
    """The deadline is the caller's (30 s for the tool), not a library's default: a page that takes 6 s
    to start arrives."""
    with serving() as port:
        SiteHandler.routes = {"/slow": (200, {"Content-Type": "text/plain"}, b"at last")}
        page = asyncio.run(
            http.fetch(f"http://127.0.0.1:{port}/slow", max_bytes=100, timeout=20, policy=LOCAL)
        )
    assert isinstance(page, http.Fetched) and page.body == b"at last"


def test_a_host_that_cannot_be_resolved_is_a_network_error_naming_it() -> None:
    with pytest.raises(ToolError) as unresolved:  # an empty label: refused before any DNS query
        asyncio.run(http.fetch("http://docs..python.org/3/", max_bytes=100, timeout=20))
    assert unresolved.value.code == "NETWORK_ERROR"
    assert unresolved.value.message.startswith("could not resolve docs..python.org: ")
    assert unresolved.value.message.endswith("; check the host name")


@pytest.mark.parametrize("address", ["93.184.216.34", "::ffff:93.184.216.34", "2606:4700:4700::1111"])
def test_a_public_address_needs_no_rule(address: str) -> None:
    checked = asyncio.run(addresses.checked_address(address, None))
    written = ipaddress.ip_address(address)
    mapped = written.ipv4_mapped if isinstance(written, ipaddress.IPv6Address) else None
    assert ipaddress.ip_address(checked) == (mapped or written)  # ::ffff:a.b.c.d connects to a.b.c.d


def test_a_refused_address_names_the_host_as_written_and_the_rule_that_allows_it() -> None:
    with pytest.raises(ToolError) as refused:
        asyncio.run(
            addresses.checked_address("127.1", PermissionPolicy(allow=[Rule.parse("WebFetch(domain:*)")]))
        )
    assert (refused.value.code, refused.value.message) == (
        "ADDRESS_NOT_ALLOWED",
        "127.1 resolves to 127.0.0.1, not a public address: WebFetch reaches only public addresses, so that a "
        "page cannot make it read the user's local services or cloud credentials. If the user wants this host, "
        "they add the rule `WebFetch(domain:127.0.0.1)` (naming it exactly)",
    )
