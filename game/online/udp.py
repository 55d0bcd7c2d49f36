"""The UDP link: one non-blocking datagram socket, IPv4 or IPv6, drained each frame, its errors counted.

The socket's family is the bind address's: an IPv4 address, an IPv6 address, or
:data:`~game.online.address.EVERY_ADDRESS`, every address of the machine, which is one IPv6
socket on ``::`` with ``IPV6_V6ONLY`` off (IPv4 peers reach it too, seen as
``::ffff:a.b.c.d``), or every IPv4 address where the system has no IPv6.  A client's socket
matches its remote's family (:func:`client_bind`).  Addresses received are
:func:`~game.online.address.normalized`: ``(host, port)``, the same tuple for the same peer.

``UdpLink`` only moves bytes: what it receives goes to the handshake or the session as it is
(``handle_datagram``), which parse it with ``struct`` and check it; nothing here interprets a
datagram.  Every receive is bounded: at most :data:`RECV_BYTES` bytes a datagram (a longer
one arrives cut to that size, and the parser refuses it as oversized) and at most
``max_datagrams`` datagrams a drain, so a flood cannot hold a frame up.

The socket's errors are not fatal during a match.  On Linux an ICMP "port unreachable" (the
peer's process has gone) surfaces as ``ConnectionRefusedError`` on a later ``recvfrom`` or
``sendto``: it is counted in ``refused`` and play goes on (the session's timeout decides when the
peer is gone).  A full send buffer drops the datagram (``send_drops``; the session resends
unacknowledged inputs).  Only opening the socket raises, :class:`LinkError`, with a message that
names the address and the fix.
"""

from __future__ import annotations

import errno
import select
import socket
from typing import NamedTuple

from game.net.protocol import MAX_DATAGRAM

from .address import EVERY_ADDRESS, Address, family_of, format_address, is_loopback, normalized

#: Bytes asked of each ``recvfrom``: one more than the largest valid datagram, so that an
#: oversized one is seen as such (and refused by the parser) rather than cut to a valid size.
RECV_BYTES = MAX_DATAGRAM + 1
#: Datagrams taken from the socket in one drain at most (a frame's worth is a handful).
MAX_DRAIN = 64

#: Errors of an IPv6 socket on a system without IPv6: every address then means every IPv4 one.
_NO_IPV6 = frozenset({errno.EAFNOSUPPORT, errno.EADDRNOTAVAIL, errno.EPROTONOSUPPORT})

__all__ = ["Address", "LinkCounts", "LinkError", "UdpLink", "client_bind", "is_loopback", "resolve"]


class LinkError(OSError):
    """The socket could not be opened or the address not resolved; the message names the fix."""


class LinkCounts(NamedTuple):
    """What the link dropped or refused (its display's figures)."""

    received: int         # datagrams handed on
    sent: int             # datagrams the socket took
    refused: int          # ICMP port unreachable reports (the peer's port is closed)
    send_drops: int       # datagrams not sent (a full buffer, no route)
    recv_errors: int      # other receive errors (the drain stops for the frame)


def resolve(host: str, port: int) -> Address:
    """The address of ``host`` (an IPv4 or IPv6 address, or a name: the first address the
    system's resolver gives, IPv6 or IPv4) and ``port``; :class:`LinkError` if it has none."""
    try:
        infos = socket.getaddrinfo(host, port, socket.AF_UNSPEC, socket.SOCK_DGRAM)
    except (socket.gaierror, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, socket.gaierror) else str(exc)
        raise LinkError(f"{host}: cannot find this host ({reason}); give its IPv4 or IPv6 address or a name "
                        f"that resolves") from None
    usable = [i for i in infos if i[0] in (socket.AF_INET, socket.AF_INET6)]
    if not usable:
        raise LinkError(f"{host}: this host has no IPv4 or IPv6 address; give one")
    return normalized(usable[0][4])


def client_bind(remote: Address) -> Address:
    """Where a client's socket binds to talk to ``remote``: its family's loopback address for a
    loopback remote, else its family's every address; a port the system picks."""
    host = remote[0]
    if family_of(host) != socket.AF_INET6:
        return ("127.0.0.1" if is_loopback(host) else "0.0.0.0", 0)
    mapped = host.startswith("::ffff:")              # an IPv4 peer written as IPv6: reached from "::" only
    return ("::1" if is_loopback(host) and not mapped else "::", 0)


class UdpLink:
    """A non-blocking UDP socket bound to ``bind`` (``(host, port)``: an IPv4 or IPv6 address, a
    name, or :data:`~game.online.address.EVERY_ADDRESS`; port 0 lets the system pick:
    :attr:`address` says which); ``recv_bytes``: each receive's cap (a server's datagrams are
    larger: one more than ``room_protocol.MAX_DATAGRAM``)."""

    def __init__(self, bind: Address, *, max_drain: int = MAX_DRAIN, recv_bytes: int = RECV_BYTES) -> None:
        self.max_drain, self.recv_bytes = max_drain, recv_bytes
        try:
            sock = _open(bind)
        except socket.gaierror as exc:
            raise LinkError(f"{bind[0]}: cannot find this host ({exc.strerror}); give an address of this "
                            f"machine") from None
        except OSError as exc:
            raise LinkError(_bind_message(bind, exc)) from None
        except OverflowError:
            raise LinkError(f"UDP port {bind[1]}: give a port from 0 to 65535") from None
        self._sock = sock
        #: The address the socket is bound to (the port the system picked for port 0).
        self.address: Address = normalized(sock.getsockname())
        #: The socket's family: ``socket.AF_INET`` or ``socket.AF_INET6``.
        self.family = sock.family
        self._received = self._sent = self._refused = self._send_drops = self._recv_errors = 0

    def receive(self) -> list[tuple[bytes, Address]]:
        """The datagrams waiting now, oldest first, at most ``max_drain`` of them."""
        out: list[tuple[bytes, Address]] = []
        while len(out) < self.max_drain:
            try:
                data, addr = self._sock.recvfrom(self.recv_bytes)
            except BlockingIOError:
                break
            except ConnectionRefusedError:     # a datagram sent earlier met a closed port
                self._refused += 1
                continue
            except OSError:
                self._recv_errors += 1
                break
            out.append((data, normalized(addr)))
        self._received += len(out)
        return out

    def send(self, data: bytes, addr: Address) -> bool:
        """Send one datagram; False (and counted) when the system did not take it."""
        try:
            self._sock.sendto(data, addr)
        except ConnectionRefusedError:
            self._refused += 1
            return False
        except OSError:                        # a full buffer, no route, the network down
            self._send_drops += 1
            return False
        self._sent += 1
        return True

    def wait(self, timeout: float) -> bool:
        """Block until a datagram is waiting or ``timeout`` s have passed; True if one is."""
        try:
            ready, _, _ = select.select([self._sock], [], [], max(timeout, 0.0))
        except (OSError, ValueError):          # the socket was closed meanwhile
            return False
        return bool(ready)

    @property
    def counts(self) -> LinkCounts:
        return LinkCounts(self._received, self._sent, self._refused, self._send_drops, self._recv_errors)

    def close(self) -> None:
        self._sock.close()


def _open(bind: Address) -> socket.socket:
    """A non-blocking UDP socket bound to ``bind`` (see :class:`UdpLink`); OSError (a
    ``gaierror`` for a name that does not resolve) or OverflowError (the port) if it cannot be."""
    host, port = bind[0], bind[1]
    if host == EVERY_ADDRESS:
        try:
            return _bound(socket.AF_INET6, ("::", port))
        except OSError as exc:
            if exc.errno not in _NO_IPV6:
                raise
        return _bound(socket.AF_INET, ("0.0.0.0", port))
    family = family_of(host)
    if family is None or "%" in host:                  # a name (its first address), or a zone to look up
        info = socket.getaddrinfo(host, port, socket.AF_UNSPEC, socket.SOCK_DGRAM, 0, socket.AI_PASSIVE)[0]
        family, bind = info[0], normalized(info[4])
    return _bound(family, bind)


def _bound(family: socket.AddressFamily, bind: Address) -> socket.socket:
    """A socket of ``family`` bound to ``bind``; on ``::`` dual-stack (``IPV6_V6ONLY`` off)."""
    sock = socket.socket(family, socket.SOCK_DGRAM)
    try:
        sock.setblocking(False)
        if family == socket.AF_INET6 and bind[0] == "::":
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(bind)
    except BaseException:
        sock.close()
        raise
    return sock


def _bind_message(bind: Address, exc: OSError) -> str:
    where = f"UDP port {bind[1]}" if bind[0] == EVERY_ADDRESS else f"UDP {format_address(bind)}"
    if exc.errno == errno.EADDRINUSE:
        return f"cannot listen on {where}: the port is in use (another game?); give another port"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"cannot listen on {where}: not allowed ({exc.strerror}); give a port from 1024 up"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"cannot listen on {where}: this machine has no such address; give one of its own, or none"
    if exc.errno == errno.EAFNOSUPPORT:
        return f"cannot listen on {where}: this machine has no IPv6; give an IPv4 address, or none"
    return f"cannot listen on {where} ({exc.strerror or exc})"
