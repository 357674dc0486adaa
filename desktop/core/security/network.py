"""SSRF guard: only public addresses may be fetched by tools.

:func:`resolve_public` turns a host into addresses and refuses the host when *any* of them is
not public, so a DNS name that mixes a public and a private answer is refused as a whole.
Callers must then connect to one of the returned addresses (pin it) instead of resolving the
name again, or DNS rebinding could swap in a private address between check and connect.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

RESOLVE_TIMEOUT = 10.0

_V4_BLOCKED = tuple(
    ipaddress.IPv4Network(net)
    for net in (
        "0.0.0.0/8",  # "this network", unspecified
        "10.0.0.0/8",  # private
        "100.64.0.0/10",  # carrier-grade NAT
        "127.0.0.0/8",  # loopback
        "169.254.0.0/16",  # link-local (cloud metadata lives here)
        "172.16.0.0/12",  # private
        "192.0.0.0/24",  # IETF protocol assignments
        "192.0.2.0/24",  # documentation
        "192.88.99.0/24",  # 6to4 relay anycast
        "192.168.0.0/16",  # private
        "198.18.0.0/15",  # benchmarking
        "198.51.100.0/24",  # documentation
        "203.0.113.0/24",  # documentation
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, broadcast
    )
)
_V6_BLOCKED = tuple(
    ipaddress.IPv6Network(net)
    for net in (
        "::/127",  # unspecified, loopback
        "64:ff9b:1::/48",  # local-use NAT64
        "100::/64",  # discard-only
        "2001:db8::/32",  # documentation
        "2001:10::/28",  # ORCHID
        "3fff::/20",  # documentation
        "5f00::/16",  # SRv6 SIDs
        "fc00::/7",  # unique local
        "fe80::/10",  # link-local
        "fec0::/10",  # site-local (deprecated)
        "ff00::/8",  # multicast
    )
)
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_COMPAT = ipaddress.IPv6Network("::/96")  # deprecated IPv4-compatible addresses


class BlockedAddressError(ValueError):
    """A host that resolves to (or is) an address tools must not reach."""


def parse_ip(text: str) -> IPAddress | None:
    """Parse an IP literal, including the legacy numeric IPv4 forms ``inet_aton`` accepts.

    ``2130706433``, ``0x7f000001``, ``0177.0.0.1``, ``127.1`` and ``0x7f.1`` all mean
    127.0.0.1 to most resolvers, so they must mean it here too. Brackets and an IPv6 zone
    (``%eth0``) are dropped.

    Args:
        text: A host as written in a URL.

    Returns:
        The address, or None when ``text`` is a name rather than a number.
    """
    host = text.strip().strip("[]").split("%", 1)[0].rstrip(".")
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    parts = host.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    numbers: list[int] = []
    for part in parts:
        try:
            if part.lower().startswith("0x"):
                numbers.append(int(part[2:] or "0", 16))
            elif len(part) > 1 and part.startswith("0"):
                numbers.append(int(part, 8))
            else:
                numbers.append(int(part, 10) if part.isdigit() else -1)
        except ValueError:
            return None
        if numbers[-1] < 0:
            return None
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (4 - len(head)):
        return None
    value = 0
    for n in head:
        value = value * 256 + n
    return ipaddress.IPv4Address(value * 256 ** (4 - len(head)) + last)


def _ipv4_public(addr: ipaddress.IPv4Address) -> bool:
    return not any(addr in net for net in _V4_BLOCKED) and addr.is_global


def _embedded_ipv4(addr: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address] | None:
    """IPv4 addresses an IPv6 address carries (mapped, compatible, 6to4, Teredo, NAT64)."""
    if addr.ipv4_mapped is not None:
        return [addr.ipv4_mapped]
    if addr in _COMPAT:
        return [ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)]
    if addr.sixtofour is not None:
        return [addr.sixtofour]
    if addr.teredo is not None:
        return list(addr.teredo)
    if addr in _NAT64:
        return [ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)]
    return None


def is_public_address(ip: str | IPAddress) -> bool:
    """Whether tools may connect to ``ip``.

    Refused: loopback, private, link-local, CGNAT (100.64/10), multicast, reserved,
    documentation and unspecified ranges, and IPv6 addresses embedding such an IPv4 address
    (IPv4-mapped ``::ffff:a.b.c.d``, IPv4-compatible ``::a.b.c.d``, 6to4 ``2002::/16``, Teredo
    ``2001::/32``, NAT64 ``64:ff9b::/96``). Unparseable input is not public.

    Args:
        ip: An address object or text (numeric IPv4 forms such as ``2130706433`` accepted).
    """
    addr = ip if isinstance(ip, IPAddress) else parse_ip(str(ip))
    if addr is None:
        return False
    if isinstance(addr, ipaddress.IPv4Address):
        return _ipv4_public(addr)
    embedded = _embedded_ipv4(addr)
    if embedded is not None:
        if addr.ipv4_mapped is None and addr not in _COMPAT and not addr.is_global:
            return False
        return all(_ipv4_public(v4) for v4 in embedded)
    return not any(addr in net for net in _V6_BLOCKED) and addr.is_global


def _is_local_name(host: str) -> bool:
    name = host.lower().rstrip(".")
    return name == "localhost" or name.endswith((".localhost", ".local", ".internal"))


async def resolve_public(host: str, port: int) -> list[str]:
    """Resolve ``host`` and return its addresses if every one of them is public.

    Numeric hosts (``127.0.0.1``, ``[::1]``, ``2130706433``, ``0x7f000001``…) are parsed
    here, never sent to the resolver. Names are resolved with ``getaddrinfo`` in a thread.

    Args:
        host: Host name or IP literal (brackets allowed).
        port: Port the caller will connect to.

    Returns:
        The resolved addresses (text, first one preferred), all public.

    Raises:
        BlockedAddressError: The host is local or any address is not public.
        OSError: The name does not resolve (``socket.gaierror``) or resolution timed out.
    """
    literal = parse_ip(host)
    if literal is not None:
        if not is_public_address(literal):
            raise BlockedAddressError(f"{host} is not a public address")
        return [str(literal)]
    name = host.strip().strip("[]")
    if not name or _is_local_name(name):
        raise BlockedAddressError(f"{host or '(empty host)'} is a local name")
    try:
        async with asyncio.timeout(RESOLVE_TIMEOUT):
            infos = await asyncio.to_thread(socket.getaddrinfo, name, port, 0, socket.SOCK_STREAM)
    except TimeoutError as exc:
        raise OSError(f"resolving {name} timed out") from exc
    addresses: list[str] = []
    for info in infos:
        text = str(info[4][0]).split("%", 1)[0]
        if not is_public_address(text):
            raise BlockedAddressError(f"{name} resolves to a non-public address ({text})")
        if text not in addresses:
            addresses.append(text)
    if not addresses:
        raise OSError(f"{name} did not resolve")
    return addresses
