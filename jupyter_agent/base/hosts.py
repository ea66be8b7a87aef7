"""A host name as rules and checks compare it: one spelling for every way of writing the same host."""

from __future__ import annotations

import ipaddress
import re
import socket

_NUMERIC_LABEL = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)", re.IGNORECASE)


def canonical_host(host: str) -> str:
    """Lower case, no trailing dot, IDNA; an IP address in any spelling as the standard one (an IPv4-mapped
    IPv6 address as its IPv4 address); localhost as 127.0.0.1."""
    text = host.strip().lower().rstrip(".").removeprefix("[").removesuffix("]")
    if text == "localhost" or text.endswith(".localhost"):
        return "127.0.0.1"
    if all(_NUMERIC_LABEL.fullmatch(label) for label in text.split(".")) and text:
        try:
            return socket.inet_ntoa(socket.inet_aton(text))  # inet_aton reads 127.1, 2130706433, 0x7f.1
        except OSError:
            return text
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        pass
    else:  # `::ffff:1.2.3.4` connects to 1.2.3.4: one spelling, so a rule naming 1.2.3.4 sees it
        mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
        return str(mapped or address)
    try:
        return text.encode("idna").decode()
    except UnicodeError:
        return text
