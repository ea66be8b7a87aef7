"""Where WebFetch may connect: public addresses only, unless a rule names the host literally.

A fetch the model asks for runs on the user's machine, inside their network: `http://127.0.0.1:8888/api` reaches
the Jupyter server, `169.254.169.254` a cloud's metadata service (credentials), `10.x` the office. So the host
is resolved first and every address it resolves to must be public (`ipaddress`'s `is_global`: not private,
loopback, link-local, multicast, reserved, shared or documentation space); the connection then goes to the
address that was checked (a second lookup could answer differently: DNS rebinding), and each redirect is
checked again. A rule that names the host literally (`WebFetch(domain:127.0.0.1)`, `WebFetch(domain:intranet)`)
allows it anyway; a wildcard rule (`domain:*`) does not.

Hosts are compared in one canonical form, so `127.1`, `2130706433`, `0x7f.0.0.1` and `localhost` are all
`127.0.0.1`, for the rules as for this check.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from typing import TYPE_CHECKING

from ...base.errors import ToolError
from ...base.hosts import canonical_host

if TYPE_CHECKING:
    from ...permissions.policy import PermissionPolicy

#: Names that reach a cloud's metadata service whatever DNS says.
_METADATA_NAMES = frozenset({"metadata", "metadata.google.internal", "metadata.goog", "instance-data"})

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def named_literally(policy: PermissionPolicy | None, host: str) -> bool:
    """Whether an allow rule names this host exactly (`WebFetch(domain:127.0.0.1)`)."""
    if policy is None:
        return False
    wanted = f"domain:{host}"
    return any(rule.names("WebFetch") and rule.pattern == wanted for rule in policy.allow)


#: Not public whatever this Python's `is_global` says: before 3.11.10 / 3.12.4 it calls 192.0.0.0/24 global, and
#: 192.0.0.192 is Oracle Cloud's metadata address.
_NEVER_PUBLIC = (ipaddress.ip_network("192.0.0.0/24"),)
#: IPv6 prefixes whose last 32 bits are an IPv4 address a translator or the host reaches: NAT64's well-known
#: prefix (a gateway forwards `64:ff9b::a00:1` to 10.0.0.1), IPv4-compatible and SIIT-translated addresses.
_IPV4_INSIDE = tuple(ipaddress.ip_network(n) for n in ("64:ff9b::/96", "::/96", "::ffff:0:0:0/96"))


def _public(address: Address) -> bool:
    return address.is_global and not any(address in network for network in _NEVER_PUBLIC)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries to (mapped, 6to4, NAT64, compatible, SIIT), or None."""
    carried = address.ipv4_mapped or address.sixtofour
    if carried is None and any(address in network for network in _IPV4_INSIDE):
        carried = ipaddress.IPv4Address(address.packed[-4:])
    return carried


def forbidden(address: Address) -> bool:
    """Not a public address, or an IPv6 address that carries a non-public IPv4 one (`::ffff:127.0.0.1`,
    `64:ff9b::a9fe:a9fe`, `2002:7f00:1::`)."""
    carried = _embedded_ipv4(address) if isinstance(address, ipaddress.IPv6Address) else None
    if carried is not None:
        # Where the packets go decides: Python's own table for these prefixes differs between versions
        # (3.11.2 calls all of 2002::/16 private, 3.11.7 only the 6to4 forms of private IPv4s).
        return not _public(carried)
    return not _public(address)


async def checked_address(host: str, policy: PermissionPolicy | None) -> str:
    """The address to connect to for `host`: resolved once, every answer checked. `ADDRESS_NOT_ALLOWED` when
    one is not public and no rule names the host literally."""
    canonical = canonical_host(host)
    allowed = named_literally(policy, canonical)
    if canonical in _METADATA_NAMES and not allowed:
        raise _refused(host, canonical, "a cloud metadata service")
    try:
        # no port: the addresses do not depend on it; one answer per address (stream sockets)
        infos = await asyncio.to_thread(socket.getaddrinfo, canonical, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise ToolError("NETWORK_ERROR", f"could not resolve {host}: {exc}; check the host name") from exc
    addresses = [ipaddress.ip_address(str(info[4][0])) for info in infos]
    bad = next((a for a in addresses if forbidden(a)), None)
    if bad is not None and not allowed:
        carried = _embedded_ipv4(bad) if isinstance(bad, ipaddress.IPv6Address) else None
        inside = f" (which reaches {carried})" if carried is not None else ""
        raise _refused(host, canonical, f"{bad}{inside}, not a public address")
    return str(addresses[0])


def _refused(host: str, canonical: str, what: str) -> ToolError:
    return ToolError(
        "ADDRESS_NOT_ALLOWED",
        f"{host} resolves to {what}: WebFetch reaches only public addresses, so that a page cannot make it read "
        f"the user's local services or cloud credentials. If the user wants this host, they add the rule "
        f"`WebFetch(domain:{canonical})` (naming it exactly)",
    )
