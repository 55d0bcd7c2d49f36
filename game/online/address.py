"""Network addresses, IPv4 and IPv6: the text a player types, the key of the per-IP limits, and
the one way an address is printed.

Standard library only, and no socket opened: the command line's parser reads flags with it
before anything else is imported, and the server's rooms key their limits with it.

An address is what the UDP link gives and takes, ``(host, port)``; an IPv6 address with a zone
(a link-local ``fe80::`` one, whose interface matters) keeps the socket's 4-tuple
``(host, port, 0, scope_id)``, since ``sendto`` takes the zone from the tuple, never from the
text.  The flow label is dropped: the same peer is always the same tuple, so addresses can be
compared and used as keys.

The text forms (``docs/netplay.md``, "Addresses"): ``HOST`` or ``HOST:PORT`` for an IPv4
address or a name, ``[IPV6]`` or ``[IPV6]:PORT`` for an IPv6 address, and a bare IPv6 address
(``::1``, ``2001:db8::5``), which has no port part.  Printed, an IPv6 address is in brackets:
``[::1]:7100``; an IPv4 one is ``1.2.3.4:7100``.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
from typing import Union

#: An address as the link gives it: ``(host, port)``, or ``(host, port, 0, scope_id)`` for an
#: IPv6 address with a zone.
Address = Union[tuple[str, int], tuple[str, int, int, int]]
#: The bind host meaning every address of this machine: IPv6 and IPv4 both (one dual-stack
#: socket, IPv4 peers seen as ``::ffff:a.b.c.d``) where the system allows, else every IPv4 one.
EVERY_ADDRESS = ""
#: The prefix of an IPv4-mapped IPv6 address, as a dual-stack socket reports an IPv4 peer.
_MAPPED = "::ffff:"


class AddressError(ValueError):
    """An address written in a form no host has; the message says which form to write."""


def split_host_port(text: str) -> tuple[str, str | None]:
    """``text`` as ``(host, port text)``: the port's text is None when ``text`` has no port
    part (a bare host, ``[IPV6]``, a bare IPv6 address), "" after a ``:`` with nothing after
    it; the host is "" when nothing comes before the ``:``.  Brackets are taken off an IPv6
    address.  :class:`AddressError` for a bracket left open, text after ``]`` that is not
    ``:PORT``, brackets around something not an IPv6 address, a ``]`` with no ``[``, or
    several ``:`` that are not an IPv6 address."""
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise AddressError("an IPv6 address in brackets needs its closing ']': write [ADDRESS]:PORT, "
                               "as [::1]:7100")
        host, rest = text[1:end], text[end + 1:]
        if not is_ipv6(host):
            raise AddressError(f"{host!r} in brackets is not an IPv6 address: brackets hold an IPv6 address, "
                               f"as [::1]:7100")
        if not rest:
            return host, None
        if not rest.startswith(":"):
            raise AddressError(f"{rest!r} after ']': write [ADDRESS]:PORT, as [::1]:7100")
        return host, rest[1:]
    if "]" in text:
        raise AddressError("a ']' with no '[' before it: write an IPv6 address as [ADDRESS]:PORT, as [::1]:7100")
    if text.count(":") > 1:
        if not is_ipv6(text):
            raise AddressError("not an IPv6 address, and a host has one ':' at most (before its port): write "
                               "HOST:PORT, or an IPv6 address as [ADDRESS]:PORT")
        return text, None                          # a bare IPv6 address has no port part
    host, sep, port = text.rpartition(":")
    return (host, port) if sep else (text, None)


def is_ipv6(host: str) -> bool:
    """True for an IPv6 address's text (a zone, ``%eth0``, allowed)."""
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        return False
    return True


def is_ip(host: str) -> bool:
    """True for an IPv4 or an IPv6 address's text (not a name)."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def family_of(host: str) -> socket.AddressFamily | None:
    """``AF_INET6`` for an IPv6 address's text, ``AF_INET`` for an IPv4 one, None for a name."""
    if is_ipv6(host):
        return socket.AF_INET6
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return None
    return socket.AF_INET


def is_loopback(host: str) -> bool:
    """True for an address of this machine's loopback: 127.0.0.0/8, ``::1``, or an IPv4
    loopback address mapped into IPv6."""
    if host.startswith(_MAPPED) and "." in host:
        host = host[len(_MAPPED):]
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def normalized(sockaddr: tuple[object, ...]) -> Address:
    """A socket's address (``recvfrom``, ``getsockname``, ``getaddrinfo``) as an :data:`Address`:
    ``(host, port)``, with ``(host, port, 0, scope_id)`` for an IPv6 address with a zone."""
    host, port = str(sockaddr[0]), int(sockaddr[1])      # type: ignore[call-overload]
    scope = int(sockaddr[3]) if len(sockaddr) >= 4 else 0  # type: ignore[call-overload]
    return (host, port, 0, scope) if scope else (host, port)


def format_address(addr: object) -> str:
    """The one printed form of an address: ``1.2.3.4:7100`` for IPv4 (or a name),
    ``[::1]:7100`` for IPv6 (``[fe80::1%eth0]:7100`` with a zone); anything that is not a
    ``(host, port, ...)`` tuple as ``str`` gives it."""
    if not isinstance(addr, tuple) or len(addr) < 2:
        return str(addr)
    host, port = str(addr[0]), addr[1]
    if ":" not in host:
        return f"{host}:{port}"
    scope = addr[3] if len(addr) >= 4 else 0
    if scope and "%" not in host:
        host = f"{host}%{_zone_name(int(scope))}"
    return f"[{host}]:{port}"


def _zone_name(scope: int) -> str:
    try:
        return socket.if_indextoname(scope)
    except (OSError, OverflowError, ValueError):
        return str(scope)


@functools.lru_cache(maxsize=4096)
def ip_key(host: str) -> str:
    """What the server's per-IP limits count ``host`` as: an IPv4 address as it is (an
    IPv4-mapped IPv6 one, ``::ffff:a.b.c.d``, as its IPv4 address ``a.b.c.d``); a global IPv6
    address as its /64 network (``2001:db8:1:2::/64``: one home or machine is given a whole /64
    and may use any address in it); a loopback or link-local IPv6 address as it is.  Text that
    is no address (a test's name) as it is."""
    if ":" not in host:
        return host
    try:
        ip = ipaddress.IPv6Address(host)
    except ValueError:
        return host
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    if ip.is_loopback or ip.is_link_local or ip.scope_id:
        return host
    return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
