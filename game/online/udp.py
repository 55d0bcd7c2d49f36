"""The UDP link: one non-blocking IPv4 datagram socket, drained each frame, its errors counted.

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

#: Bytes asked of each ``recvfrom``: one more than the largest valid datagram, so that an
#: oversized one is seen as such (and refused by the parser) rather than cut to a valid size.
RECV_BYTES = MAX_DATAGRAM + 1
#: Datagrams taken from the socket in one drain at most (a frame's worth is a handful).
MAX_DRAIN = 64

Address = tuple[str, int]


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
    """``(ip, port)`` of an IPv4 host name or address; :class:`LinkError` if it has none."""
    try:
        infos = socket.getaddrinfo(host, port, socket.AF_INET, socket.SOCK_DGRAM)
    except (socket.gaierror, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, socket.gaierror) else str(exc)
        raise LinkError(f"{host}: cannot find this host ({reason}); give its IPv4 address or a name "
                        f"that resolves") from None
    ip, got_port = infos[0][4][:2]
    return str(ip), int(got_port)


def is_loopback(ip: str) -> bool:
    """True for an address of 127.0.0.0/8."""
    return ip.startswith("127.")


class UdpLink:
    """A non-blocking UDP socket bound to ``bind`` (``(ip, port)``; port 0 lets the system pick:
    :attr:`address` says which); ``recv_bytes``: each receive's cap (a server's datagrams are
    larger: one more than ``room_protocol.MAX_DATAGRAM``)."""

    def __init__(self, bind: Address, *, max_drain: int = MAX_DRAIN, recv_bytes: int = RECV_BYTES) -> None:
        self.max_drain, self.recv_bytes = max_drain, recv_bytes
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            sock.setblocking(False)
            sock.bind(bind)
        except OSError as exc:
            sock.close()
            raise LinkError(_bind_message(bind, exc)) from None
        except OverflowError:
            sock.close()
            raise LinkError(f"UDP port {bind[1]}: give a port from 0 to 65535") from None
        self._sock = sock
        ip, port = sock.getsockname()[:2]
        #: The address the socket is bound to (the port the system picked for port 0).
        self.address: Address = (str(ip), int(port))
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
            out.append((data, (str(addr[0]), int(addr[1]))))
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


def _bind_message(bind: Address, exc: OSError) -> str:
    ip, port = bind
    where = f"UDP {ip}:{port}"
    if exc.errno == errno.EADDRINUSE:
        return f"cannot listen on {where}: the port is in use (another game?); give another port"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"cannot listen on {where}: not allowed ({exc.strerror}); give a port from 1024 up"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"cannot listen on {where}: this machine has no such address; give one of its own, or none"
    return f"cannot listen on {where} ({exc.strerror or exc})"
