"""WebFetch's address check and domain rules hold for addresses written in IPv6 forms that carry an IPv4 one,
and for a metadata address some Pythons call global (found by an acceptance audit of the security issue).

`::ffff:1.2.3.4` connects to 1.2.3.4; NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`) gateways forward to the IPv4
address inside; 192.0.0.192 is Oracle Cloud's metadata address, which Python 3.11.7's `is_global` lets through.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest
from dispatch_harness import Approvals, ToolHarness

from jupyter_agent.base.hosts import canonical_host
from jupyter_agent.base.result import ToolResult
from jupyter_agent.builtin_tools.web import WebFetch
from jupyter_agent.builtin_tools.web.addresses import forbidden
from jupyter_agent.tools import (
    Approve,
    PermissionPolicy,
    Rule,
)


def _fetch(url: str, tmp_path: Path, policy: PermissionPolicy) -> ToolResult:
    tools = ToolHarness(tmp_path, [WebFetch()], policy=policy, approver=Approvals(Approve()))
    return tools.call("WebFetch", url=url, prompt="what is there")


@pytest.mark.parametrize(
    "host",
    [
        pytest.param("192.0.0.192", id="Oracle Cloud metadata"),
        pytest.param("[::7f00:1]", id="IPv4-compatible loopback"),
        pytest.param("[64:ff9b::a9fe:a9fe]", id="NAT64 to link-local metadata"),
        pytest.param("[64:ff9b::a00:1]", id="NAT64 to a private network"),
        pytest.param("[2002:a9fe:a9fe::]", id="6to4 to link-local metadata"),
        pytest.param("[::ffff:0:a00:1]", id="SIIT-translated private address"),
    ],
)
def test_an_address_carrying_a_private_one_is_refused_before_any_connection(
    tmp_path: Path, host: str
) -> None:
    wildcard = PermissionPolicy(mode="bypassPermissions", allow=[Rule.parse("WebFetch(domain:*)")])
    result = _fetch(f"http://{host}/latest/meta-data/", tmp_path, wildcard)
    assert result.error_code == "ADDRESS_NOT_ALLOWED", result.content
    assert f"{host.strip('[]')} resolves to " in result.content
    assert "they add the rule `WebFetch(domain:" in result.content
    if "a9fe:a9fe" in host:
        assert "(which reaches 169.254.169.254), not a public address" in result.content


@pytest.mark.parametrize("address", ["64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8", "8.8.8.8"])
def test_an_address_carrying_a_public_one_stays_allowed(address: str) -> None:
    assert not forbidden(ipaddress.ip_address(address))


def test_a_deny_rule_for_an_ipv4_address_holds_for_its_ipv4_mapped_spelling(tmp_path: Path) -> None:
    policy = PermissionPolicy(mode="bypassPermissions", deny=[Rule.parse("WebFetch(domain:8.8.8.8)")])
    for url in ("http://[::ffff:8.8.8.8]/", "http://[::FFFF:808:808]/", "http://8.8.8.8/"):
        result = _fetch(url, tmp_path, policy)
        assert result.error_code == "DENIED", (url, result.content)
    assert canonical_host("[::ffff:127.0.0.1]") == "127.0.0.1"
