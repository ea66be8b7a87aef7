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
from .hosts import canonical_host

if TYPE_CHECKING:
    from ..permissions import PermissionPolicy

#: Names that reach a cloud's metadata service whatever DNS says.
_METADATA_NAMES = frozenset({"metadata", "metadata.google.internal", "metadata.goog", "instance-data"})

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def named_literally(policy: PermissionPolicy | None, host: str) -> bool:
    """Whether an allow rule names this host exactly (`WebFetch(domain:127.0.0.1)`)."""
    if policy is None:
        return False
    wanted = f"domain:{host}"
    return any(rule.names("WebFetch") and rule.pattern == wanted for rule in policy.allow)


def forbidden(address: Address) -> bool:
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return not (mapped or address).is_global


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
        raise _refused(host, canonical, f"{bad}, not a public address")
    return str(addresses[0])


def _refused(host: str, canonical: str, what: str) -> ToolError:
    return ToolError(
        "ADDRESS_NOT_ALLOWED",
        f"{host} resolves to {what}: WebFetch reaches only public addresses, so that a page cannot make it read "
        f"the user's local services or cloud credentials. If the user wants this host, they add the rule "
        f"`WebFetch(domain:{canonical})` (naming it exactly)",
    )
